#pragma once
// Input decks: TOML files checked against a schema that every part of the code adds its keys to.
// Every key has a type, a default (or is required), a unit, a description and its allowed values,
// so the schema both validates decks and documents them (`meridian check --describe`).
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace meridian::io {

// A deck error: the message names the file, line, key and what is allowed.
class DeckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class KeyType { integer, real, boolean, string, integer_list, real_list, string_list };

using Value = std::variant<long, double, bool, std::string, std::vector<long>, std::vector<double>,
                           std::vector<std::string>>;

struct KeySpec {
  std::string section;
  std::string key;
  KeyType type = KeyType::real;
  std::optional<Value> default_value;  // empty: the key is required
  std::string unit;                    // "1" for dimensionless, empty for non-numbers
  std::string doc;
  std::vector<std::string> choices;    // allowed strings (for string and string_list keys)
  std::optional<double> min, max;      // inclusive bounds on numbers (and on list entries)
  bool min_exclusive = false;
  bool restart_may_change = false;     // may differ between a checkpoint and the deck that restarts it
  std::string name() const { return section + "." + key; }
};

class Schema {
 public:
  KeySpec& add(KeySpec spec);
  const KeySpec* find(const std::string& section, const std::string& key) const;
  const std::vector<KeySpec>& keys() const { return keys_; }
  // A Markdown table of every key: section, key, type, default, unit, allowed values, description.
  void describe(std::ostream& out) const;

 private:
  std::vector<KeySpec> keys_;
};

// A command-line override `section.key=value`.
struct Override {
  std::string section, key, text;
  static Override parse(const std::string& assignment);
};

class Deck {
 public:
  // Reads only [solver] kind, to pick the schema before full validation.
  static std::string peek_solver_kind(const std::string& path);
  // Parses, applies overrides, checks every key against the schema and fills defaults.
  static Deck load(const std::string& path, const Schema& schema, const std::vector<Override>& overrides = {});
  // Parses TOML text (for tests and for the resolved deck stored in output files).
  static Deck from_text(const std::string& text, const std::string& origin, const Schema& schema,
                        const std::vector<Override>& overrides = {});

  long integer(const std::string& section, const std::string& key) const;
  double real(const std::string& section, const std::string& key) const;
  bool boolean(const std::string& section, const std::string& key) const;
  const std::string& string(const std::string& section, const std::string& key) const;
  const std::vector<long>& integers(const std::string& section, const std::string& key) const;
  const std::vector<double>& reals(const std::string& section, const std::string& key) const;
  const std::vector<std::string>& strings(const std::string& section, const std::string& key) const;

  // An error about a key whose value is valid alone but not with the rest (e.g. a grid the ranks
  // cannot split): names the file, the line where the key was set, and the key.
  [[noreturn]] void fail(const std::string& section, const std::string& key, const std::string& message) const;

  // The whole deck with defaults filled in, as TOML text; stored in every output file.
  std::string resolved_text() const;
  const std::string& origin() const { return origin_; }
  // Keys whose values differ between this deck and another, skipping those a restart may change.
  std::vector<std::string> restart_conflicts(const Deck& checkpointed) const;

 private:
  const Value& value(const std::string& section, const std::string& key) const;
  std::string where(const std::string& name) const;

  const Schema* schema_ = nullptr;
  std::string origin_;
  std::map<std::string, Value> values_;       // by "section.key"
  std::map<std::string, std::string> where_;  // "line N" or "--set" for values given explicitly
};

std::string to_text(const Value& value);

}  // namespace meridian::io
