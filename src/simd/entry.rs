//! The functions each back end compiles: [`entry_points`] instantiates the generic
//! check of [`crate::simd`] for one vector type and target feature.

/// The entry points of a back end, for its vector type `$V` and target feature
/// `$feature` (named `$name` in the docs): `check` and `validate`, which
/// `crate::dispatch` caches, and the out-of-line `check_long`, `validate_long`
/// and `check_tiered` they call. Each is the generic function of `crate::simd`
/// compiled with the back end's instruction set, so that the generic body and
/// every `Vector` method in it are inlined with that feature enabled.
macro_rules! entry_points {
    ($V:ty, $feature:literal, $name:literal) => {
        #[doc = concat!("[`crate::simd::check`] with ", $name, ".")]
        ///
        /// # Safety
        /// The CPU must support the back end's instruction set ([`available`]).
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn check(bytes: &[u8]) -> Option<usize> {
            // SAFETY: this function is only called with the feature present, and
            // `check_long` needs the same feature, present by the same contract.
            unsafe { $crate::simd::check::<$V, _>(bytes, |bytes| check_long(bytes)) }
        }

        #[doc = concat!("[`crate::simd::check`]'s verdict with ", $name, ", with the C")]
        /// calling convention, for `crate::dispatch`'s `validate`: a jump from the
        /// C entry point, and on to [`validate_long`] or a scalar fallback by
        /// another (see `crate::simd::Answer`).
        ///
        /// # Safety
        /// As for [`check`], and `ptr` must be non-NULL with `len` readable bytes.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe extern "C" fn validate(ptr: *const u8, len: usize) -> bool {
            // SAFETY: as in `check`; the caller guarantees `len` readable bytes at
            // the non-NULL `ptr`, and `validate_long` gets them back unchanged.
            unsafe {
                $crate::simd::check::<$V, bool>(core::slice::from_raw_parts(ptr, len), |bytes| {
                    validate_long(bytes.as_ptr(), bytes.len())
                })
            }
        }

        #[doc = concat!("[`crate::simd::check_long`] with ", $name, ", out of line.")]
        ///
        /// # Safety
        /// As for [`check`], and `bytes.len() > simd::BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn check_long(bytes: &[u8]) -> Option<usize> {
            // SAFETY: as in `check`.
            unsafe { $crate::simd::check_long::<$V>(bytes, |bytes, at| check_tiered(bytes, at)) }
        }

        /// [`validate`] for inputs longer than one block: [`check_long`]'s work
        /// with a `bool` answer and the C calling convention, out of line, so that
        /// [`validate`] reaches it by a jump and its answer needs no conversion.
        ///
        /// # Safety
        /// As for [`validate`], and `len > simd::BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_long(ptr: *const u8, len: usize) -> bool {
            // SAFETY: the caller guarantees `len` readable bytes at the non-NULL
            // `ptr`, the feature and `len > BLOCK`.
            unsafe {
                let bytes = core::slice::from_raw_parts(ptr, len);
                $crate::simd::check_long::<$V>(bytes, |bytes, at| check_tiered(bytes, at)).is_none()
            }
        }

        #[doc = concat!("[`crate::simd::check_tiered`] with ", $name, ", out of line.")]
        ///
        /// # Safety
        /// As for [`check_long`], and `at` is where it left the leading ASCII.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn check_tiered(bytes: &[u8], at: usize) -> Option<usize> {
            // SAFETY: as in `check`.
            unsafe { $crate::simd::check_tiered::<$V>(bytes, at) }
        }
    };
}
pub(crate) use entry_points;
