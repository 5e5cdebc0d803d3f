// The C++17 consumer: the same behaviour as ../common/consumer.c, written the way C++
// code holds text (std::string, std::string_view), passing .data() and .size() to the
// C functions without casts.
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include <utf8validate.h>

namespace {

bool is_utf8(std::string_view text) { return utf8_validate(text.data(), text.size()); }

}  // namespace

int main() {
    const std::string input{std::istreambuf_iterator<char>(std::cin),
                            std::istreambuf_iterator<char>()};
    if (std::string_view(utf8validate_version()) != UTF8VALIDATE_VERSION_STRING) {
        std::cerr << "consumer: header " << UTF8VALIDATE_VERSION_STRING << ", library "
                  << utf8validate_version() << '\n';
        return 3;
    }
    if (is_utf8(input)) {
        std::cout << "valid: " << input.size() << " bytes\n";
        return 0;
    }
    std::cout << "invalid at byte " << utf8_first_error(input.data(), input.size()) << '\n';
    return 1;
}
