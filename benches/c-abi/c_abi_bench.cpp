// utf8validate through its C ABI, as a C/C++ program links it (the installed CMake
// package's static library, libutf8validate.a), against C/C++ peers, side by side in
// one process and one run, with Google Benchmark.
//
// Contenders (the benchmark names' second part):
//   ours_validate        utf8_validate                       (<utf8validate.h>)
//   ours_first_error     utf8_first_error
//   simdutf_validate     simdutf::validate_utf8              (C++ simdutf 7.7.1)
//   simdutf_with_errors  simdutf::validate_utf8_with_errors  (the peer of utf8_first_error)
//   glib                 g_utf8_validate_len                 (GLib)
//   iconv                glibc iconv, UTF-8 to UTF-32LE into a buffer of 4 bytes per
//                        input byte (the work `iconv -f UTF-8` does, for reference)
//   memchr               glibc memchr for 0xFF, a byte UTF-8 never uses: it reads every
//                        byte, the ceiling for any validator
//
// Inputs (the benchmark names' first part): every *.txt of the corpus (corpus-*; the
// directory is $UTF8VALIDATE_CORPUS, default ../shared/corpus beside the repository,
// which run.sh passes) and of its wikipedia_mars/ (wiki-*), each skipped with a message
// when absent; generated 1 MiB ASCII and mixed text, 1 MiB with one error 1000 bytes
// before the end and 64 MiB of mixed text (gen-*); 16-, 64- and 256-byte ASCII and mixed
// text, and 256-byte windows of five wikipedia_mars texts, a different window each call
// (short-*). The generators are those of the Rust benchmark (benches/src/peers.rs),
// byte for byte. With --sizes, instead: ASCII and mixed text of every length from 1 to
// 512 bytes (size-ascii-N, size-mixed-N; the mixed text is the first N bytes of "\u00e9"
// and mixed_text, cut back to a character boundary and padded with '.': not all ASCII
// from 2 bytes on), timed for utf8_validate, utf8_first_error and
// simdutf::validate_utf8 only: the sizes where a route changes.
//
// Before anything is timed, every contender must give the answer each input has by
// construction (the corpus is well-formed text; a generated input is well-formed, or
// has its first error where it was put): the verdict, and the first-error offset for
// ours_first_error, simdutf_with_errors, glib and iconv; memchr must find no 0xFF.
// Otherwise the program prints what disagreed and exits with status 2.
//
// Run: bash benches/c-abi/run.sh (it builds and installs the library, builds this
// program, runs it for the default back end and for the AVX2 back end, and prints the
// table; run.sh --sizes for the sizes). Google Benchmark's own flags
// (--benchmark_filter, ...) are accepted.

#include <benchmark/benchmark.h>
#include <glib.h>
#include <gnu/libc-version.h>
#include <iconv.h>
#include <simdutf.h>
#include <utf8validate.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// One input and the answer it has by construction: nullopt when well-formed, else the
// offset of the first byte of the first ill-formed sequence. An input with `starts` is
// a set of windows of `span` bytes of `bytes` (well-formed text) instead: each call
// takes the next window, so that the branches of a validator see text that varies from
// call to call, as a server's short inputs do, rather than learning one input.
struct Input {
  std::string name;
  std::vector<char> bytes;
  std::optional<size_t> first_error;
  std::vector<size_t> starts = {};
  size_t span = 0;

  size_t call_len() const { return starts.empty() ? bytes.size() : span; }
  size_t expected_offset() const { return first_error.value_or(call_len()); }
  // The start of each call's bytes (one call: the whole input).
  std::vector<const char *> calls() const {
    if (starts.empty()) {
      return {bytes.data()};
    }
    std::vector<const char *> out;
    for (size_t s : starts) {
      out.push_back(bytes.data() + s);
    }
    return out;
  }
};

// ---- Inputs --------------------------------------------------------------------------

// The *.txt files of dir, sorted by name, named prefix + file name without ".txt" and
// ".utf8" (as the Rust benchmark names them).
void add_text_files(std::vector<Input> &inputs, const fs::path &dir, const std::string &prefix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "skipping %s: folder not found\n", dir.c_str());
    return;
  }
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto &path : files) {
    std::string name = path.filename().string();
    for (const char *suffix : {".txt", ".utf8"}) {
      const size_t n = std::strlen(suffix);
      if (name.size() >= n && name.compare(name.size() - n, n, suffix) == 0) {
        name.resize(name.size() - n);
      }
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      std::exit(2);
    }
    inputs.push_back({prefix + name, std::move(bytes), std::nullopt});
  }
}

// Windows of span bytes of a wikipedia_mars text, named short-<language>-windows-<span>:
// every 37th offset at which a window starts and ends on a character boundary, up to
// 4096 windows (the text's first 1 MiB). Skipped with a message when absent.
void add_windows(std::vector<Input> &inputs, const fs::path &dir, const std::string &language,
                 size_t span) {
  const fs::path path = dir / (language + ".utf8.txt");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "skipping windows of %s: file not found\n", path.c_str());
    return;
  }
  std::vector<char> text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.resize(std::min(text.size(), size_t{1} << 20));
  auto boundary = [&text](size_t i) {
    return i == text.size() || static_cast<signed char>(text[i]) >= -0x40;
  };
  std::vector<size_t> starts;
  for (size_t at = 0; at + span <= text.size() && starts.size() < 4096; at += 37) {
    if (boundary(at) && boundary(at + span)) {
      starts.push_back(at);
    }
  }
  Input windows{"short-" + language + "-windows-" + std::to_string(span), std::move(text),
                std::nullopt, std::move(starts), span};
  inputs.push_back(std::move(windows));
}

// xorshift64, as in peers.rs, so both benchmarks see the same generated inputs.
struct Rng {
  uint64_t state;
  uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
};

// len bytes of printable ASCII words (peers.rs: ascii_text).
std::vector<char> ascii_text(size_t len) {
  Rng rng{0x9E3779B97F4A7C15ull};
  std::vector<char> text(len);
  for (auto &c : text) {
    const uint64_t n = rng.next() % 7;
    if (n == 0) {
      c = ' ';
    } else {
      const uint8_t r = static_cast<uint8_t>(rng.next() % 26);
      c = static_cast<char>('a' + static_cast<uint8_t>(r + static_cast<uint8_t>(n)) % 26);
    }
  }
  return text;
}

// len bytes of well-formed text mixing 1- to 4-byte characters, padded with '.'
// (peers.rs: mixed_text).
std::vector<char> mixed_text(size_t len) {
  static const char *const chars[] = {"a", "e", " ", "t", "\u00e9", "\u0436",
                                      "\u0639", "\u20ac", "\u4e2d", "\ud55c", "\u0915",
                                      "\U0001F600"};
  const size_t count = sizeof chars / sizeof chars[0];
  Rng rng{0x2545F4914F6CDD1Dull};
  std::vector<char> text;
  text.reserve(len + 4);
  for (;;) {
    const char *c = chars[rng.next() % count];
    const size_t n = std::strlen(c);
    if (text.size() + n > len) {
      break;
    }
    text.insert(text.end(), c, c + n);
  }
  text.resize(len, '.');
  return text;
}

std::vector<Input> make_inputs(const fs::path &corpus) {
  std::vector<Input> inputs;
  add_text_files(inputs, corpus, "corpus-");
  add_text_files(inputs, corpus / "wikipedia_mars", "wiki-");

  const size_t mib = size_t{1} << 20;
  inputs.push_back({"gen-ascii-1MiB", ascii_text(mib), std::nullopt});
  std::vector<char> mixed = mixed_text(mib);
  // A stray continuation byte 1000 bytes before the end, on a character boundary (a
  // lead byte or ASCII, so what precedes it is well-formed): the first error is there.
  std::vector<char> broken = mixed;
  size_t at = mib - 1000;
  while (static_cast<signed char>(broken[at]) < -0x40) {
    at--;
  }
  broken[at] = static_cast<char>(0x80);
  inputs.push_back({"gen-mixed-1MiB", std::move(mixed), std::nullopt});
  inputs.push_back({"gen-error-near-end-1MiB", std::move(broken), at});
  // Larger than every cache: the rate memory delivers.
  inputs.push_back({"gen-mixed-64MiB", mixed_text(64 * mib), std::nullopt});

  for (size_t len : {16, 64, 256}) {
    inputs.push_back({"short-ascii-" + std::to_string(len), ascii_text(len), std::nullopt});
    inputs.push_back({"short-mixed-" + std::to_string(len), mixed_text(len), std::nullopt});
  }
  for (const char *language : {"english", "german", "russian", "hindi", "chinese"}) {
    add_windows(inputs, corpus / "wikipedia_mars", language, 256);
  }
  return inputs;
}

// ASCII and mixed text of every length from 1 to 512 bytes (see the top of the file).
std::vector<Input> make_size_inputs() {
  std::vector<Input> inputs;
  const size_t most = 512;
  // mixed_text begins with two ASCII characters; the lead "\u00e9" makes the
  // shortest texts mixed too.
  std::vector<char> mixed = {'\xc3', '\xa9'};
  const std::vector<char> rest = mixed_text(most);
  mixed.insert(mixed.end(), rest.begin(), rest.end());
  for (size_t len = 1; len <= most; len++) {
    inputs.push_back({"size-ascii-" + std::to_string(len), ascii_text(len), std::nullopt});
    size_t cut = len;
    while (cut > 0 && cut < mixed.size() && static_cast<signed char>(mixed[cut]) < -0x40) {
      cut--;
    }
    std::vector<char> text(mixed.begin(), mixed.begin() + static_cast<std::ptrdiff_t>(cut));
    text.resize(len, '.');
    inputs.push_back({"size-mixed-" + std::to_string(len), std::move(text), std::nullopt});
  }
  return inputs;
}

// ---- Contenders ----------------------------------------------------------------------

// iconv UTF-8 to UTF-32LE into out (at least 4 bytes per input byte): the number of
// input bytes converted, which is the length when the input is well-formed and the
// offset of the first ill-formed sequence otherwise (EILSEQ, or EINVAL when the input
// ends inside a sequence).
size_t iconv_convert(iconv_t cd, const char *buf, size_t len, char *out, size_t out_cap) {
  iconv(cd, nullptr, nullptr, nullptr, nullptr);  // back to the initial state
  char *in = const_cast<char *>(buf);             // iconv's signature; it only reads
  size_t in_left = len;
  char *o = out;
  size_t o_left = out_cap;
  const size_t r = iconv(cd, &in, &in_left, &o, &o_left);
  if (r == static_cast<size_t>(-1) && errno == E2BIG) {
    std::fprintf(stderr, "iconv: output buffer too small\n");
    std::abort();
  }
  return static_cast<size_t>(in - buf);
}

struct IconvHandle {
  iconv_t cd;
  std::vector<char> out;
  explicit IconvHandle(size_t len) : cd(iconv_open("UTF-32LE", "UTF-8")), out(4 * len + 16) {
    if (cd == reinterpret_cast<iconv_t>(-1)) {
      std::perror("iconv_open(\"UTF-32LE\", \"UTF-8\")");
      std::exit(2);
    }
  }
  ~IconvHandle() { iconv_close(cd); }
  IconvHandle(const IconvHandle &) = delete;
  IconvHandle &operator=(const IconvHandle &) = delete;
  size_t operator()(const char *buf, size_t len) {
    return iconv_convert(cd, buf, len, out.data(), out.size());
  }
};

size_t glib_first_error(const char *buf, size_t len) {
  const gchar *end = nullptr;
  g_utf8_validate_len(buf, len, &end);
  return static_cast<size_t>(end - buf);
}

// The check a server hand-rolls for its short strings (the nginx module had this one
// before the library's header took it over): the high bits of up to 64 bytes, 8 at a
// time, then the library for anything that is not all ASCII.
bool hand_rolled(const char *p, size_t n) {
  if (n <= 64) {
    const char *q = p;
    const char *end = p + n;
    uint64_t any = 0;
    for (; end - q >= 8; q += 8) {
      uint64_t word;
      std::memcpy(&word, q, 8);
      any |= word;
    }
    while (q < end) {
      any |= static_cast<unsigned char>(*q++);
    }
    if ((any & 0x8080808080808080ULL) == 0) {
      return true;
    }
  }
  return utf8_validate(p, n);
}

// ---- Agreement -----------------------------------------------------------------------

// Every contender's answer on every input against the answer it has by construction.
bool agree(const std::vector<Input> &inputs) {
  bool ok = true;
  size_t checks = 0;
  auto expect = [&](const Input &in, const char *who, const std::string &got, const std::string &want) {
    checks++;
    if (got != want) {
      std::fprintf(stderr, "DISAGREEMENT on %s: %s gives %s, the input's answer is %s\n",
                   in.name.c_str(), who, got.c_str(), want.c_str());
      ok = false;
    }
  };
  auto verdict = [](bool valid) { return std::string(valid ? "valid" : "invalid"); };
  auto offset = [](size_t o) { return "offset " + std::to_string(o); };
  for (const Input &in : inputs) {
    const size_t n = in.call_len();
    const bool valid = !in.first_error.has_value();
    const size_t want = in.expected_offset();
    for (const char *p : in.calls()) {
      expect(in, "utf8_validate", verdict(utf8_validate(p, n)), verdict(valid));
      expect(in, "utf8_validate_inline", verdict(utf8_validate_inline(p, n)), verdict(valid));
      expect(in, "hand-rolled", verdict(hand_rolled(p, n)), verdict(valid));
      expect(in, "utf8_first_error", offset(utf8_first_error(p, n)), offset(want));
      expect(in, "simdutf::validate_utf8", verdict(simdutf::validate_utf8(p, n)), verdict(valid));
      const simdutf::result r = simdutf::validate_utf8_with_errors(p, n);
      expect(in, "simdutf::validate_utf8_with_errors", verdict(r.is_ok()) + ", " + offset(r.count),
             verdict(valid) + ", " + offset(want));
      const gchar *end = nullptr;
      const bool g = g_utf8_validate_len(p, n, &end);
      expect(in, "g_utf8_validate_len", verdict(g) + ", " + offset(static_cast<size_t>(end - p)),
             verdict(valid) + ", " + offset(want));
      IconvHandle conv(n);
      expect(in, "iconv", offset(conv(p, n)), offset(want));
      expect(in, "memchr(0xFF)", memchr(p, 0xFF, n) == nullptr ? "not found" : "found", "not found");
    }
  }
  if (ok) {
    std::fprintf(stderr, "agreement: %zu inputs, %zu answers, every one as expected\n",
                 inputs.size(), checks);
  }
  return ok;
}

// ---- Benchmarks ----------------------------------------------------------------------

// Times call(buf, len) on input's bytes, or on each of its windows in turn.
template <typename F>
void time_calls(benchmark::State &state, const Input &input, F &call) {
  const size_t len = input.call_len();
  if (input.starts.empty()) {
    const char *buf = input.bytes.data();
    for (auto _ : state) {
      // The pointer is opaque to the compiler each time, so no call is hoisted out of
      // the loop; the result is kept, so no call is dropped.
      benchmark::DoNotOptimize(buf);
      auto result = call(buf, len);
      benchmark::DoNotOptimize(result);
    }
  } else {
    const std::vector<const char *> calls = input.calls();
    size_t next = 0;
    for (auto _ : state) {
      const char *buf = calls[next];
      next = next + 1 == calls.size() ? 0 : next + 1;
      auto result = call(buf, len);
      benchmark::DoNotOptimize(result);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
  state.counters["bytes"] = static_cast<double>(len);
}

// Times f(buf, len) on input (which outlives the benchmarks).
template <typename F>
void add(const Input &input, const char *contender, F f) {
  const std::string name = input.name + "/" + contender;
  benchmark::RegisterBenchmark(name.c_str(), [&input, f](benchmark::State &state) mutable {
    time_calls(state, input, f);
  });
}

// The sizes' contenders: ours (the call, and the header's inline short path against the
// check a server hand-rolls) and simdutf's verdict.
void register_sizes(const std::vector<Input> &inputs) {
  for (const Input &in : inputs) {
    add(in, "ours_validate", [](const char *p, size_t n) { return utf8_validate(p, n); });
    add(in, "ours_inline", [](const char *p, size_t n) { return utf8_validate_inline(p, n); });
    add(in, "hand_rolled", hand_rolled);
    add(in, "ours_first_error", [](const char *p, size_t n) { return utf8_first_error(p, n); });
    add(in, "simdutf_validate", [](const char *p, size_t n) { return simdutf::validate_utf8(p, n); });
  }
}

void register_all(const std::vector<Input> &inputs) {
  for (const Input &in : inputs) {
    add(in, "ours_validate", [](const char *p, size_t n) { return utf8_validate(p, n); });
    add(in, "ours_first_error", [](const char *p, size_t n) { return utf8_first_error(p, n); });
    add(in, "simdutf_validate", [](const char *p, size_t n) { return simdutf::validate_utf8(p, n); });
    add(in, "simdutf_with_errors",
        [](const char *p, size_t n) { return simdutf::validate_utf8_with_errors(p, n).count; });
    add(in, "glib", glib_first_error);
    // One converter (and output buffer) per benchmark run, opened before the timing.
    const std::string name = in.name + "/iconv";
    benchmark::RegisterBenchmark(name.c_str(), [&in](benchmark::State &state) {
      IconvHandle conv(in.call_len());
      time_calls(state, in, conv);
    });
    add(in, "memchr", [](const char *p, size_t n) { return memchr(p, 0xFF, n); });
  }
}

std::string env_or(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : std::string(fallback);
}

}  // namespace

int main(int argc, char **argv) {
  // --sizes, ours (Google Benchmark rejects flags it does not know): taken out first.
  bool sizes = false;
  int kept = 1;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--sizes") == 0) {
      sizes = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }

  const char *corpus_env = std::getenv("UTF8VALIDATE_CORPUS");
  const fs::path corpus = corpus_env != nullptr ? fs::path(corpus_env) : fs::path("../shared/corpus");
  static const std::vector<Input> inputs = sizes ? make_size_inputs() : make_inputs(corpus);
  if (!agree(inputs)) {
    std::fprintf(stderr, "the contenders do not all give the expected answers: nothing is timed\n");
    return 2;
  }

  // What the run measured, in the JSON output's "context".
  benchmark::AddCustomContext("utf8validate_version", utf8validate_version());
  benchmark::AddCustomContext("utf8validate_backend",
                              env_or("UTF8VALIDATE_BACKEND", "default (best this CPU supports)"));
  benchmark::AddCustomContext("simdutf_version", SIMDUTF_VERSION);
  benchmark::AddCustomContext("simdutf_implementation", simdutf::get_active_implementation()->name());
  benchmark::AddCustomContext("glib_version", std::to_string(glib_major_version) + "." +
                                                  std::to_string(glib_minor_version) + "." +
                                                  std::to_string(glib_micro_version));
  benchmark::AddCustomContext("glibc_version", gnu_get_libc_version());
  benchmark::AddCustomContext("compiler", C_ABI_BENCH_COMPILER);
  benchmark::AddCustomContext("corpus", corpus.string());

  if (sizes) {
    register_sizes(inputs);
  } else {
    register_all(inputs);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
