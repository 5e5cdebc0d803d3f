/*
 * The header's utf8_validate_inline in a C caller's loop, for benches/src/short.rs,
 * which compiles this file into a shared object at run time (with the static library
 * linked in, calls bound inside it, as in a program linked with libutf8validate.a)
 * and times each call of the loops. The loop matches the Rust contenders':
 * the input's pointer and length pass through memory before each call, as Rust's
 * black_box makes them, and each answer is stored.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utf8validate.h"

/* `batch` calls of utf8_validate_inline(buf, len). */
void short_inline_loop(const char *buf, size_t len, uint32_t batch) {
  for (uint32_t i = 0; i < batch; i++) {
    const char *p = buf;
    size_t n = len;
    __asm__ volatile("" : "+m"(p), "+m"(n));
    bool ok = utf8_validate_inline(p, n);
    __asm__ volatile("" : "+m"(ok));
  }
}

/* The same loop with no check (`len != 0`): the floor of the C figures. */
void short_baseline_loop(const char *buf, size_t len, uint32_t batch) {
  for (uint32_t i = 0; i < batch; i++) {
    const char *p = buf;
    size_t n = len;
    __asm__ volatile("" : "+m"(p), "+m"(n));
    bool ok = n != 0;
    __asm__ volatile("" : "+m"(ok));
  }
}

/* utf8_validate_inline's answer on buf[0, len), for the bench to check against the
 * other contenders before it times the loop. */
bool short_inline_answer(const char *buf, size_t len) {
  return utf8_validate_inline(buf, len);
}
