//! The functions each back end compiles: [`entry_points`] instantiates the generic
//! check of [`crate::simd`] for one vector type and target feature.

/// The entry points of a back end named `$id`, for its vector type `$V` and target
/// feature `$feature` (named `$name` in the docs): its row of `crate::dispatch`'s
/// table (`IMPLEMENTATION`, with the module's own `available`), the entry points it
/// lists (`first_error`, `validate`, `validate_chunk`, `validate_chunk_long`,
/// `hand_off` and `hand_off_long`), and the
/// out-of-line `first_error_long`, `validate_long`, `first_error_tiered`,
/// `tiered` (the generic `check_tiered`), `validate_chunk_tiered` and
/// `hand_off_tiered` they reach. Each is the generic function of
/// `crate::simd` compiled with the back end's instruction set, so that the generic
/// body and every `Vector` method in it are inlined with that feature enabled.
macro_rules! entry_points {
    ($id:literal, $V:ty, $feature:literal, $name:literal) => {
        #[doc = concat!("The ", $name, " back end's row of `crate::dispatch`'s table, named")]
        #[doc = concat!("`", $id, "` (as `UTF8VALIDATE_BACKEND` spells it).")]
        pub(crate) const IMPLEMENTATION: $crate::implementation::Implementation =
            $crate::implementation::Implementation {
                name: $id,
                available,
                first_error,
                validate,
                validate_chunk,
                validate_chunk_long,
                hand_off,
                hand_off_long,
            };

        #[doc = concat!("The first error by [`crate::simd::short::check`] with ", $name, ", with the")]
        /// C calling convention, for `crate::dispatch`'s `first_error`: the offset
        /// of the first byte of the first ill-formed sequence, or `len` when there
        /// is none. A jump from the C entry point, and on to [`first_error_long`]
        /// or a scalar fallback by another (see `crate::simd::answer::Answer`).
        ///
        /// # Safety
        /// The CPU must support the back end's instruction set ([`available`]), and
        /// `ptr` must be non-NULL with `len` readable bytes.
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn first_error(ptr: *const u8, len: usize) -> usize {
            // SAFETY: this function is only called with the feature present, which
            // `first_error_long` needs too; the caller guarantees `len` readable
            // bytes at the non-NULL `ptr`, and `first_error_long` gets them back
            // unchanged.
            unsafe {
                $crate::simd::short::check::<$V, usize>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes| first_error_long(bytes.as_ptr(), bytes.len()),
                )
            }
        }

        #[doc = concat!("[`crate::simd::short::check`]'s verdict with ", $name, ", with the C")]
        /// calling convention, for `crate::dispatch`'s `validate`: a jump from the
        /// C entry point, and on to [`validate_long`] or a scalar fallback by
        /// another (see `crate::simd::answer::Answer`).
        ///
        /// # Safety
        /// As for [`first_error`].
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn validate(ptr: *const u8, len: usize) -> bool {
            // SAFETY: as in `first_error`.
            unsafe {
                $crate::simd::short::check::<$V, bool>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes| validate_long(bytes.as_ptr(), bytes.len()),
                )
            }
        }

        #[doc = concat!("The answer for a chunk of data with ", $name, ", for")]
        /// `crate::dispatch`'s `validate_chunk`: the machine's state after `state`
        /// followed by the `len` bytes at `ptr` (at most one block), by
        /// [`crate::simd::chunk::check_chunk`]. A jump from the C entry point.
        ///
        /// # Safety
        /// As for [`first_error`], `state` is not ERROR and `3 <= len <= BLOCK`
        /// (`crate::chunk::CHUNK_FROM`, `BLOCK`).
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn validate_chunk(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
        ) -> $crate::State {
            // SAFETY: as in `first_error`, and the caller's guarantees on `state`
            // and `len`.
            unsafe {
                $crate::simd::chunk::check_chunk::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::ReturnState,
                )
            }
        }

        /// [`validate_chunk`] for chunks longer than one block
        /// ([`crate::simd::chunk::check_chunk_long`]): a jump from the C entry point, and
        /// on to [`validate_chunk_tiered`] by another.
        ///
        /// # Safety
        /// As for [`first_error`], `state` is not ERROR and `len > BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_chunk_long(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
        ) -> $crate::State {
            // SAFETY: as in `first_error`, and the caller's guarantee that
            // `len > BLOCK`; `validate_chunk_tiered` gets the chunk back unchanged
            // when it is longer than `MEDIUM`.
            unsafe {
                $crate::simd::chunk::check_chunk_long::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::ReturnState,
                    |state, bytes, _| validate_chunk_tiered(state, bytes.as_ptr(), bytes.len()),
                )
            }
        }

        /// [`validate_chunk`] for chunks longer than four blocks
        /// ([`crate::simd::chunk::check_chunk_tiered`]), out of line.
        ///
        /// # Safety
        /// As for [`first_error`], `state` is not ERROR and `len > 4 * BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_chunk_tiered(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
        ) -> $crate::State {
            // SAFETY: as in `first_error`, and the caller's guarantee on `len`.
            unsafe {
                $crate::simd::chunk::check_chunk_tiered::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::ReturnState,
                )
            }
        }

        #[doc = concat!("The check of [`validate_chunk`] with ", $name, ", the state then")]
        /// handed on with `to` (`crate::chunk::HandOff`), for `crate::dispatch`'s
        /// `hand_off`, by which the stream's `feed` checks a chunk and keeps its
        /// bookkeeping. A jump from the C entry point.
        ///
        /// # Safety
        /// As for [`validate_chunk`], and `to` must be what `HandOff`'s end takes.
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn hand_off(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
            to: *mut core::ffi::c_void,
        ) -> bool {
            // SAFETY: as in `validate_chunk`, and the caller's guarantee on `to`.
            unsafe {
                $crate::simd::chunk::check_chunk::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::HandOff::new(to),
                )
            }
        }

        /// [`hand_off`] for chunks longer than one block: a jump from the C entry
        /// point, and on to [`hand_off_tiered`] by another.
        ///
        /// # Safety
        /// As for [`validate_chunk_long`] and [`hand_off`].
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn hand_off_long(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
            to: *mut core::ffi::c_void,
        ) -> bool {
            // SAFETY: as in `validate_chunk_long` and `hand_off`.
            unsafe {
                $crate::simd::chunk::check_chunk_long::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::HandOff::new(to),
                    |state, bytes, end| {
                        hand_off_tiered(state, bytes.as_ptr(), bytes.len(), end.to())
                    },
                )
            }
        }

        /// [`hand_off`] for chunks longer than four blocks, out of line.
        ///
        /// # Safety
        /// As for [`validate_chunk_tiered`] and [`hand_off`].
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn hand_off_tiered(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
            to: *mut core::ffi::c_void,
        ) -> bool {
            // SAFETY: as in `validate_chunk_tiered` and `hand_off`.
            unsafe {
                $crate::simd::chunk::check_chunk_tiered::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::HandOff::new(to),
                )
            }
        }

        /// [`first_error`] for inputs longer than one block: the generic
        /// [`crate::simd::long::check_long`] with the exact offset of the first error
        /// (`len` when valid) and the C calling convention, out of line, so that
        /// [`first_error`] reaches it by a jump, and it [`first_error_tiered`] by
        /// another.
        ///
        /// # Safety
        /// As for [`first_error`], and `len > BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn first_error_long(ptr: *const u8, len: usize) -> usize {
            // SAFETY: the caller guarantees `len` readable bytes at the non-NULL
            // `ptr`, the feature and `len > BLOCK`; `first_error_tiered` gets
            // them back unchanged.
            unsafe {
                $crate::simd::long::check_long::<$V, usize>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes, at| first_error_tiered(bytes.as_ptr(), bytes.len(), at),
                )
            }
        }

        /// [`validate`] for inputs longer than one block: the generic
        /// [`crate::simd::long::check_long`] with a `bool` answer and the C calling
        /// convention, out of line, so that [`validate`] reaches it by a jump and
        /// its answer needs no conversion.
        ///
        /// # Safety
        /// As for [`validate`], and `len > BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_long(ptr: *const u8, len: usize) -> bool {
            // SAFETY: the caller guarantees `len` readable bytes at the non-NULL
            // `ptr`, the feature and `len > BLOCK`.
            unsafe {
                $crate::simd::long::check_long::<$V, bool>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes, at| tiered(bytes, at).is_none(),
                )
            }
        }

        /// [`tiered`]'s exact first error (`len` when valid), with the C
        /// calling convention, for [`first_error_long`].
        ///
        /// # Safety
        /// As for [`first_error_long`], and `at` is where the generic `check_long`
        /// left the leading ASCII.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn first_error_tiered(ptr: *const u8, len: usize, at: usize) -> usize {
            // SAFETY: as in `first_error_long`.
            unsafe {
                let bytes = core::slice::from_raw_parts(ptr, len);
                match tiered(bytes, at) {
                    None => len,
                    Some(passed) => $crate::simd::answer::offset_from_boundary(bytes, passed),
                }
            }
        }

        #[doc = concat!("[`crate::simd::long::check_tiered`] with ", $name, ", out of line.")]
        ///
        /// # Safety
        /// As for [`validate_long`], and `at` is where the generic `check_long`
        /// left the leading ASCII.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn tiered(bytes: &[u8], at: usize) -> Option<usize> {
            // SAFETY: as in `first_error`.
            unsafe {
                $crate::simd::long::check_tiered::<$V, false>(
                    bytes,
                    at,
                    <$V as $crate::simd::vector::Vector>::splat(0),
                )
            }
        }
    };
}
pub(crate) use entry_points;
