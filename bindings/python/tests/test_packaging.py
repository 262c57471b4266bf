"""The extension module as built: an extension must not link or embed libpython."""

import shutil
import subprocess
import sys

import pytest

import paimon_rs


def _tool(name):
    if not sys.platform.startswith("linux") or shutil.which(name) is None:
        pytest.skip(f"needs {name} on Linux")
    return name


def test_extension_does_not_link_or_embed_libpython():
    so = paimon_rs._native.__file__
    dynamic = subprocess.run([_tool("readelf"), "-d", so], capture_output=True, text=True,
                             check=True).stdout
    needed = [line for line in dynamic.splitlines() if "(NEEDED)" in line]
    assert needed and not [n for n in needed if "libpython" in n], needed

    def symbols(flag):
        out = subprocess.run([_tool("nm"), "-D", flag, so], capture_output=True, text=True,
                             check=True).stdout
        return {line.split()[-1] for line in out.splitlines() if line.strip()}

    defined = symbols("--defined-only")
    assert "PyInit__native" in defined
    # The C API comes from the interpreter that imports the module, not from a copy inside it.
    assert not [s for s in defined if s.startswith(("Py_", "PyObject_", "PyList_", "_Py"))]
    assert "PyList_New" in symbols("--undefined-only")


def _stub_members():
    """{class name: member names} and the module-level names of `_native.pyi`."""
    import ast
    from pathlib import Path

    stub = Path(paimon_rs._native.__file__).parent / "_native.pyi"
    tree = ast.parse(stub.read_text())
    classes, top = {}, set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {n.name for n in node.body
                                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
    return classes, top


def test_type_stubs_cover_the_extension():
    classes, top = _stub_members()
    native = paimon_rs._native
    public = {n for n in dir(native) if not n.startswith("_") or n == "__version__"}
    assert public == set(classes) | top
    provider = {"__datafusion_table_provider__", "__datafusion_catalog_provider__"}
    for name, members in classes.items():
        cls = getattr(native, name)
        if issubclass(cls, BaseException):
            continue
        runtime = {n for n in dir(cls) if not n.startswith("_") or n in provider}
        stubbed = members - {"__init__", "__iter__", "__next__", "__len__"}
        # The DataFusion provider methods exist only in builds with the feature.
        if not paimon_rs.WITH_DATAFUSION:
            stubbed -= provider
        assert runtime == stubbed, name
