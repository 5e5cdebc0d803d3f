/*
 * The header's utf8_validate_inline in a C caller's loop, for benches/src/short.rs
 * (one string at a time) and benches/src/short_pools.rs (a pool of strings, with
 * utf8_validate beside it), which compile this file into a shared object at run time
 * (with the static library linked in, calls bound inside it, as in a program linked
 * with libutf8validate.a) and time each call of the loops. The loop matches the Rust contenders':
 * the input's pointer and length pass through memory before each call, as Rust's
 * black_box makes them, and each answer is stored.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utf8validate.h"

/* Moves the code after it PHASE * PHASE_STEP bytes past the start of a 64-byte line
 * (an alignment directive and as many one-byte nops, run once per call), as short.rs
 * places its Rust loops: each loop is timed at four places in the code. short.rs
 * passes its PHASE_STEP with -D. */
#ifndef PHASE_STEP
#error "PHASE_STEP: short.rs compiles this file with -DPHASE_STEP=<bytes>"
#endif
#define STRING(x) #x
#define EXPANDED_STRING(x) STRING(x)
#define PLACE(phase)                                                                 \
  __asm__ volatile(".p2align 6, 0x90\n\t.rept " #phase " * " EXPANDED_STRING(PHASE_STEP) \
                   "\n\tnop\n\t.endr")

/* NAME_PHASE: `batch` calls of CHECK on (p, n), the input's pointer and length. */
#define LOOP(name, phase, check)                                                     \
  void name##_##phase(const char *buf, size_t len, uint32_t batch) {                 \
    PLACE(phase);                                                                    \
    for (uint32_t i = 0; i < batch; i++) {                                           \
      const char *p = buf;                                                           \
      size_t n = len;                                                                \
      __asm__ volatile("" : "+m"(p), "+m"(n));                                       \
      bool ok = check;                                                               \
      __asm__ volatile("" : "+m"(ok));                                               \
    }                                                                                \
  }

/* short_inline_loop_PHASE: `batch` calls of utf8_validate_inline(buf, len);
 * short_baseline_loop_PHASE: the same loop with no check (`len != 0`), the floor of
 * the C figures. */
#define LOOPS(phase)                                                                 \
  LOOP(short_inline_loop, phase, utf8_validate_inline(p, n))                         \
  LOOP(short_baseline_loop, phase, n != 0)

LOOPS(0)
LOOPS(1)
LOOPS(2)
LOOPS(3)

/* utf8_validate_inline's answer on buf[0, len), for the bench to check against the
 * other contenders before it times the loop. */
bool short_inline_answer(const char *buf, size_t len) {
  return utf8_validate_inline(buf, len);
}

/* For benches/src/short_pools.rs: a string of a pool (the layout of its `Str`). */
struct short_str {
  const char *p;
  size_t n;
};

/* NAME_PHASE: `passes` runs over the `count` strings of `pool`, CHECK on each
 * (p, n); p, n and the answer pass through empty asm statements in registers. */
#define POOL_LOOP(name, phase, check)                                                \
  void name##_##phase(const struct short_str *pool, size_t count, uint32_t passes) { \
    PLACE(phase);                                                                    \
    for (uint32_t r = 0; r < passes; r++) {                                          \
      for (size_t i = 0; i < count; i++) {                                           \
        const char *p = pool[i].p;                                                   \
        size_t n = pool[i].n;                                                        \
        __asm__ volatile("" : "+r"(p), "+r"(n));                                     \
        bool ok = check;                                                             \
        __asm__ volatile("" : : "r"(ok));                                            \
      }                                                                              \
    }                                                                                \
  }

/* pool_inline_loop_PHASE, pool_validate_loop_PHASE and pool_baseline_loop_PHASE: the
 * header's utf8_validate_inline, utf8_validate, and no check (`n != 0`). */
#define POOL_LOOPS(phase)                                                            \
  POOL_LOOP(pool_inline_loop, phase, utf8_validate_inline(p, n))                     \
  POOL_LOOP(pool_validate_loop, phase, utf8_validate(p, n))                          \
  POOL_LOOP(pool_baseline_loop, phase, n != 0)

POOL_LOOPS(0)
POOL_LOOPS(1)
POOL_LOOPS(2)
POOL_LOOPS(3)
