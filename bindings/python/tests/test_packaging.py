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
