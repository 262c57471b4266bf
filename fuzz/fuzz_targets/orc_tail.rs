//! Arbitrary bytes as the tail of an ORC file (PostScript, Footer: `orc_postscript`,
//! `check_orc_type_tree`) and as a stripe footer under the parsed PostScript
//! (`stripe_stream_ranges`): errors are fine, panics and hangs are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::spec::orc_footer::{check_orc_type_tree, orc_postscript, stripe_stream_ranges};

fuzz_target!(|data: &[u8]| {
    let _ = check_orc_type_tree(data, "fuzz");
    if let Ok(ps) = orc_postscript(data, "fuzz") {
        let _ = ps.tail_len();
        let _ = stripe_stream_ranges(data, &ps, 3, |c| c % 2 == 0);
    }
});
