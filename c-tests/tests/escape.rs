//! `utf8_escape` and `utf8_replace`, the C library's renderings for logs, against
//! independent oracles (`oracle::render`: an escaper and a replacer written over
//! `std`'s `Utf8Chunks`, and `String::from_utf8_lossy`): the snprintf contract
//! (return value, NUL, nothing written past `out_cap`, whole units only) for every
//! `out_cap` from 0 to the whole result + 2, and NULL arguments.

use utf8validate_c_tests as support;
#[path = "../../utf8validate-core/tests/oracle/mod.rs"]
mod oracle;

use std::ptr;

use oracle::inputs::RENDER_SAMPLES;
use oracle::render::{escape_units, replace_units};
use oracle::SAMPLES;
use support::c_api::{utf8_escape, utf8_replace};

type CRender = unsafe fn(*const std::ffi::c_char, usize, *mut std::ffi::c_char, usize) -> usize;

/// The snprintf contract of a C renderer for every `out_cap` from 0 to needed + 2:
/// the return value, the NUL, nothing written past `out_cap`, and exactly the
/// longest run of whole units that fits in `out_cap - 1` bytes.
fn assert_snprintf_contract(bytes: &[u8], render: CRender, units: &[Vec<u8>]) {
    let full: Vec<u8> = units.concat();
    let needed = full.len();
    // SAFETY: NULL output with capacity 0; `bytes` is live.
    assert_eq!(
        unsafe { render(bytes.as_ptr().cast(), bytes.len(), ptr::null_mut(), 0) },
        needed
    );
    // SAFETY: NULL output is never written, whatever the capacity.
    assert_eq!(
        unsafe { render(bytes.as_ptr().cast(), bytes.len(), ptr::null_mut(), 100) },
        needed
    );
    for cap in 0..=needed + 2 {
        const CANARY: u8 = 0xA5;
        let mut buf = vec![CANARY; cap + 8];
        // SAFETY: `buf` has `cap + 8 >= cap` writable bytes and does not overlap `bytes`.
        let got = unsafe {
            render(
                bytes.as_ptr().cast(),
                bytes.len(),
                buf.as_mut_ptr().cast(),
                cap,
            )
        };
        assert_eq!(got, needed, "return value, cap {cap}, {bytes:02x?}");
        assert!(
            buf[cap..].iter().all(|&b| b == CANARY),
            "wrote past cap {cap}: {bytes:02x?}"
        );
        if cap == 0 {
            continue;
        }
        // The longest run of whole units within cap - 1 bytes.
        let mut want = Vec::new();
        for unit in units {
            if want.len() + unit.len() > cap - 1 {
                break;
            }
            want.extend_from_slice(unit);
        }
        assert_eq!(
            &buf[..want.len()],
            &want[..],
            "prefix, cap {cap}, {bytes:02x?}"
        );
        assert_eq!(
            buf[want.len()],
            0,
            "NUL after the prefix, cap {cap}, {bytes:02x?}"
        );
        assert!(
            buf[want.len() + 1..cap + 8].iter().all(|&b| b == CANARY),
            "nothing after the NUL"
        );
        assert!(std::str::from_utf8(&want).is_ok());
        assert!(full.starts_with(&want));
        if cap > needed {
            assert_eq!(want, full, "the whole result fits in cap {cap}");
        }
    }
}

#[test]
fn snprintf_contract_for_every_capacity() {
    let mut inputs: Vec<Vec<u8>> = RENDER_SAMPLES.iter().map(|s| s.to_vec()).collect();
    inputs.extend(SAMPLES.iter().map(|s| s.as_bytes().to_vec()));
    for bytes in &inputs {
        assert_snprintf_contract(bytes, utf8_escape, &escape_units(bytes));
        assert_snprintf_contract(bytes, utf8_replace, &replace_units(bytes));
        assert_eq!(
            replace_units(bytes).concat(),
            String::from_utf8_lossy(bytes).as_bytes()
        );
    }
}

#[test]
fn null_input_with_a_length_is_the_empty_input() {
    for render in [utf8_escape as CRender, utf8_replace] {
        let mut buf = [0xA5u8; 4];
        // SAFETY: `buf` has 4 writable bytes; the NULL input is not dereferenced.
        let got = unsafe { render(ptr::null(), 10, buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(got, 0);
        assert_eq!(buf, [0, 0xA5, 0xA5, 0xA5]);
        // SAFETY: as above; NULL with length 0 is the empty input.
        let got = unsafe { render(ptr::null(), 0, buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(got, 0);
    }
}
