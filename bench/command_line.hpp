// The command line of the standalone benchmark programs in bench/: a usage error and a `--flag value` loop.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>

namespace bench {

// A program's name and its usage line (which starts with the name), for usage_error.
struct Usage {
  const char* program;
  const char* line;
};

// Prints "<program>: <message>\nusage: <line>\n" on stderr and exits with status 2.
[[noreturn]] inline void usage_error(const Usage& usage, const std::string& message) {
  std::fprintf(stderr, "%s: %s\nusage: %s\n", usage.program, message.c_str(), usage.line);
  std::exit(2);
}

// Reads argv[1..] as `--flag value` pairs and hands each value to its flag's setter. A usage error on a flag
// without a value after it ("missing value after <flag>", checked first) or on one not in `flags`
// ("unknown option <flag>").
inline void parse_flags(int argc, char** argv, const Usage& usage,
                        std::initializer_list<std::pair<const char*, std::function<void(const char*)>>> flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage_error(usage, "missing value after " + flag);
    const char* value = argv[++i];
    bool known = false;
    for (const auto& [name, set] : flags)
      if (flag == name) {
        set(value);
        known = true;
        break;
      }
    if (!known) usage_error(usage, "unknown option " + flag);
  }
}

}  // namespace bench
