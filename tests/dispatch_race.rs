//! The back end is chosen on the first call and cached; threads racing through
//! that first call must all get correct answers. This file is its own test binary
//! (a fresh process), and its one test makes the first call of the process from
//! many threads released at once.

use std::sync::{Arc, Barrier};

#[test]
fn first_calls_from_many_threads_agree_with_std() {
    const THREADS: usize = 16;
    let valid = "Grüße, 世界! 😀 ".repeat(40).into_bytes();
    let mut invalid = valid.clone();
    invalid[500] = 0xC0;
    let want_invalid = std::str::from_utf8(&invalid).unwrap_err().valid_up_to();
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            let (valid, invalid) = (valid.clone(), invalid.clone());
            std::thread::spawn(move || {
                barrier.wait();
                // Alternate which entry point makes the thread's first call.
                if i % 2 == 0 {
                    assert!(utf8validate::validate(&valid));
                    assert_eq!(utf8validate::first_error(&invalid), Some(want_invalid));
                } else {
                    assert_eq!(utf8validate::first_error(&invalid), Some(want_invalid));
                    assert!(utf8validate::validate(&valid));
                }
                for _ in 0..1000 {
                    assert!(utf8validate::validate(&valid));
                    assert!(!utf8validate::validate(&invalid));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a thread panicked");
    }
}
