#include "io/deck.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <toml.hpp>

#include "io/toml_text.hpp"

namespace meridian::io {
namespace {

const char* type_name(KeyType type) {
  switch (type) {
    case KeyType::integer: return "integer";
    case KeyType::real: return "real";
    case KeyType::boolean: return "boolean";
    case KeyType::string: return "string";
    case KeyType::integer_list: return "list of integers";
    case KeyType::real_list: return "list of reals";
    case KeyType::string_list: return "list of strings";
  }
  return "?";
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string allowed_text(const KeySpec& spec) {
  std::ostringstream out;
  if (!spec.choices.empty()) {
    out << "one of";
    for (const auto& c : spec.choices) out << " " << c;
  } else if (spec.min || spec.max) {
    if (spec.min) out << (spec.min_exclusive ? "> " : ">= ") << *spec.min;
    if (spec.min && spec.max) out << " and ";
    if (spec.max) out << "<= " << *spec.max;
  } else {
    out << "any " << type_name(spec.type);
  }
  return out.str();
}

struct Located {
  toml::value value;
  std::string where;  // "file:line" or "--set section.key"
};

// A parsed deck and the text toml11 read, whose lines map back to the source's.
struct Parsed {
  TomlText text;
  toml::value root;
};

std::string location_of(const toml::value& v, const std::string& origin, const TomlText& text) {
  return origin + ":" + std::to_string(text.source_line(static_cast<long>(v.location().line())));
}

// Text cut to a readable length for a message: a rejected million-entry list is not echoed whole.
std::string excerpt(const std::string& text, std::size_t entries = 0) {
  constexpr std::size_t limit = 160;
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + " ... (" +
         (entries ? std::to_string(entries) + " entries" : std::to_string(text.size()) + " characters") + ")";
}

[[noreturn]] void reject(const KeySpec& spec, const std::string& where, const std::string& problem) {
  throw DeckError(where + ": key '" + spec.name() + "': " + problem + " (allowed: " + allowed_text(spec) + ")");
}

void check_number(const KeySpec& spec, double x, const std::string& where) {
  const bool below = spec.min && (spec.min_exclusive ? x <= *spec.min : x < *spec.min);
  const bool above = spec.max && x > *spec.max;
  if (!std::isfinite(x) || below || above) {
    std::ostringstream msg;
    msg << "value " << x << " is out of range";
    reject(spec, where, msg.str());
  }
}

void check_choice(const KeySpec& spec, const std::string& s, const std::string& where) {
  if (!spec.choices.empty() && std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end())
    reject(spec, where, "'" + excerpt(s) + "' is not an allowed value");
}

long as_integer(const KeySpec& spec, const toml::value& v, const std::string& where) {
  if (!v.is_integer()) reject(spec, where, std::string("expected an integer, got ") + toml::stringize(v.type()));
  const long x = static_cast<long>(v.as_integer());
  check_number(spec, static_cast<double>(x), where);
  return x;
}

std::string as_string(const KeySpec& spec, const toml::value& v, const std::string& where) {
  // A key whose choices include true and false takes the TOML booleans as well as the strings.
  const bool takes_booleans = std::find(spec.choices.begin(), spec.choices.end(), "true") != spec.choices.end();
  if (v.is_boolean() && takes_booleans) return v.as_boolean() ? "true" : "false";
  if (!v.is_string()) reject(spec, where, std::string("expected a string, got ") + toml::stringize(v.type()));
  std::string s = v.as_string().str;
  check_choice(spec, s, where);
  return s;
}

double as_real(const KeySpec& spec, const toml::value& v, const std::string& where) {
  if (!v.is_floating() && !v.is_integer())
    reject(spec, where, std::string("expected a real number, got ") + toml::stringize(v.type()));
  const double x = v.is_integer() ? static_cast<double>(v.as_integer()) : v.as_floating();
  check_number(spec, x, where);
  return x;
}

const toml::array& as_list(const KeySpec& spec, const toml::value& v, const std::string& where) {
  if (!v.is_array()) reject(spec, where, std::string("expected a list, got ") + toml::stringize(v.type()));
  return v.as_array();
}

Value convert(const KeySpec& spec, const toml::value& v, const std::string& where) {
  switch (spec.type) {
    case KeyType::integer: return as_integer(spec, v, where);
    case KeyType::real: return as_real(spec, v, where);
    case KeyType::boolean:
      if (!v.is_boolean()) reject(spec, where, std::string("expected true or false, got ") + toml::stringize(v.type()));
      return v.as_boolean();
    case KeyType::string: return as_string(spec, v, where);
    case KeyType::integer_list: {
      std::vector<long> list;
      for (const auto& item : as_list(spec, v, where)) list.push_back(as_integer(spec, item, where));
      return list;
    }
    case KeyType::real_list: {
      std::vector<double> list;
      for (const auto& item : as_list(spec, v, where)) list.push_back(as_real(spec, item, where));
      return list;
    }
    case KeyType::string_list: {
      std::vector<std::string> list;
      for (const auto& item : as_list(spec, v, where)) list.push_back(as_string(spec, item, where));
      // An empty list is a value only where it is the key's own default (e.g. "no entries: the default faces").
      const bool empty_is_default = spec.default_value && std::get<std::vector<std::string>>(*spec.default_value).empty();
      if (list.empty() && !empty_is_default) reject(spec, where, "the list is empty");
      return list;
    }
  }
  return {};
}

Parsed parse_text(const std::string& source, const std::string& origin) {
  const std::size_t bad = first_invalid_utf8(source);
  if (bad != std::string::npos) {
    const auto line = 1 + std::count(source.begin(), source.begin() + static_cast<long>(bad), '\n');
    const auto column = bad - (source.rfind('\n', bad) == std::string::npos ? 0 : source.rfind('\n', bad) + 1) + 1;
    throw DeckError(origin + ":" + std::to_string(line) + ": not valid UTF-8 at column " + std::to_string(column) +
                    " (a TOML deck is UTF-8 text)");
  }
  Parsed parsed{TomlText(source), {}};
  std::istringstream stream(parsed.text.text());
  try {
    parsed.root = toml::parse(stream, origin);
  } catch (const std::exception& e) {
    throw DeckError(std::string("cannot parse ") + origin + " as TOML:\n" + parsed.text.with_source_lines(e.what()));
  }
  return parsed;
}

std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// Walks the parsed tables, rejecting unknown sections and keys, and gathers the values found.
std::map<std::string, Located> collect(const Parsed& parsed, const std::string& origin, const Schema& schema) {
  const toml::value& root = parsed.root;
  std::vector<std::string> sections;
  for (const auto& k : schema.keys())
    if (std::find(sections.begin(), sections.end(), k.section) == sections.end()) sections.push_back(k.section);
  std::map<std::string, Located> found;
  for (const auto& [section, table] : root.as_table()) {
    const std::string at = location_of(table, origin, parsed.text);
    if (std::find(sections.begin(), sections.end(), section) == sections.end())
      throw DeckError(at + ": unknown section [" + section + "]" + suggestion(section, sections) +
                      "; this deck may have: " + joined(sections));
    if (!table.is_table()) throw DeckError(at + ": '" + section + "' must be a section [" + section + "]");
    std::vector<std::string> keys;
    for (const auto& k : schema.keys())
      if (k.section == section) keys.push_back(k.key);
    for (const auto& [key, value] : table.as_table()) {
      const std::string here = location_of(value, origin, parsed.text);
      if (!schema.find(section, key))
        throw DeckError(here + ": unknown key '" + section + "." + key + "'" + suggestion(key, keys) +
                        "; keys of [" + section + "]: " + joined(keys));
      found[section + "." + key] = Located{value, here};
    }
  }
  return found;
}

}  // namespace

namespace {
// The shortest text that reads back as the same double (0.1, not 0.10000000000000001), always with a
// decimal point or an exponent, so TOML reads it as a real (and lists stay homogeneous).
std::string real_text(double x) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof(digits), x).ptr;
  const std::string s(digits, end);
  return s + (s.find_first_of(".eEn") == std::string::npos ? ".0" : "");
}

// A TOML basic string: quotes and backslashes escaped (a folder name may hold either).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}
}  // namespace

std::string to_text(const Value& value) {
  std::ostringstream out;
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out << (v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, std::string>) {
          out << quoted(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out << real_text(v);
        } else if constexpr (std::is_same_v<T, long>) {
          out << v;
        } else {
          out << "[";
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i) out << ", ";
            if constexpr (std::is_same_v<T, std::vector<std::string>>)
              out << quoted(v[i]);
            else if constexpr (std::is_same_v<T, std::vector<double>>)
              out << real_text(v[i]);
            else
              out << v[i];
          }
          out << "]";
        }
      },
      value);
  return out.str();
}

KeySpec& Schema::add(KeySpec spec) {
  if (find(spec.section, spec.key)) throw std::logic_error("deck key declared twice: " + spec.name());
  keys_.push_back(std::move(spec));
  return keys_.back();
}

const KeySpec* Schema::find(const std::string& section, const std::string& key) const {
  for (const auto& k : keys_)
    if (k.section == section && k.key == key) return &k;
  return nullptr;
}

void Schema::describe(std::ostream& out) const {
  out << "| key | type | default | unit | allowed | restart may change | description |\n";
  out << "|---|---|---|---|---|---|---|\n";
  for (const auto& k : keys_) {
    out << "| `" << k.name() << "` | " << type_name(k.type) << " | "
        << (k.default_value ? "`" + to_text(*k.default_value) + "`" : std::string("required")) << " | " << k.unit
        << " | " << allowed_text(k) << " | " << (k.restart_may_change ? "yes" : "no") << " | " << k.doc << " |\n";
  }
}

Override Override::parse(const std::string& assignment) {
  const auto eq = assignment.find('=');
  const auto dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    throw DeckError("--set '" + assignment + "': expected section.key=value");
  return Override{assignment.substr(0, dot), assignment.substr(dot + 1, eq - dot - 1), assignment.substr(eq + 1)};
}

std::string Deck::peek_solver_kind(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw DeckError(path + ": cannot open the deck (does the file exist and is it readable?)");
  std::stringstream text;
  text << file.rdbuf();
  const Parsed parsed = parse_text(text.str(), path);
  const toml::value& root = parsed.root;
  if (!root.contains("solver") || !root.at("solver").is_table() || !root.at("solver").contains("kind"))
    throw DeckError(path + ": key 'solver.kind' is required (which solver to run)");
  const toml::value& kind = root.at("solver").at("kind");
  if (!kind.is_string())
    throw DeckError(location_of(kind, path, parsed.text) + ": key 'solver.kind': expected a string, got " +
                    toml::stringize(kind.type()));
  return kind.as_string().str;
}

Deck Deck::load(const std::string& path, const Schema& schema, const std::vector<Override>& overrides) {
  std::ifstream file(path);
  if (!file) throw DeckError(path + ": cannot open the deck (does the file exist and is it readable?)");
  std::stringstream text;
  text << file.rdbuf();
  return from_text(text.str(), path, schema, overrides);
}

Deck Deck::from_text(const std::string& text, const std::string& origin, const Schema& schema,
                     const std::vector<Override>& overrides) {
  auto found = collect(parse_text(text, origin), origin, schema);
  for (const auto& o : overrides) {
    // The schema itself was chosen by the file's [solver] kind: an override could only mislabel the run.
    if (o.section == "solver" && o.key == "kind")
      throw DeckError("--set solver.kind: the solver is chosen by the deck's [solver] kind (" + origin +
                      "); write a deck for the other solver instead");
    const std::string where = "--set " + o.section + "." + o.key;
    const KeySpec* spec = schema.find(o.section, o.key);
    if (!spec) throw DeckError(where + ": unknown key '" + o.section + "." + o.key + "'");
    toml::value parsed;
    try {
      parsed = parse_text("v = " + o.text, where).root.at("v");
    } catch (const DeckError&) {
      parsed = toml::value(o.text);  // a bare word is taken as a string
    }
    found[spec->name()] = Located{parsed, where};
  }
  Deck deck;
  deck.schema_ = &schema;
  deck.origin_ = origin;
  for (const auto& spec : schema.keys()) {
    const auto it = found.find(spec.name());
    if (it != found.end()) {
      deck.values_[spec.name()] = convert(spec, it->second.value, it->second.where);
      deck.where_[spec.name()] = it->second.where;
    } else if (spec.default_value) {
      deck.values_[spec.name()] = *spec.default_value;
    } else {
      throw DeckError(origin + ": key '" + spec.name() + "' is required: " + spec.doc + " (allowed: " +
                      allowed_text(spec) + ")");
    }
  }
  return deck;
}

const Value& Deck::value(const std::string& section, const std::string& key) const {
  const auto it = values_.find(section + "." + key);
  if (it == values_.end()) throw std::logic_error("deck key not in the schema: " + section + "." + key);
  return it->second;
}

long Deck::integer(const std::string& s, const std::string& k) const { return std::get<long>(value(s, k)); }
double Deck::real(const std::string& s, const std::string& k) const { return std::get<double>(value(s, k)); }
bool Deck::boolean(const std::string& s, const std::string& k) const { return std::get<bool>(value(s, k)); }
const std::string& Deck::string(const std::string& s, const std::string& k) const {
  return std::get<std::string>(value(s, k));
}
const std::vector<long>& Deck::integers(const std::string& s, const std::string& k) const {
  return std::get<std::vector<long>>(value(s, k));
}
const std::vector<double>& Deck::reals(const std::string& s, const std::string& k) const {
  return std::get<std::vector<double>>(value(s, k));
}
const std::vector<std::string>& Deck::strings(const std::string& s, const std::string& k) const {
  return std::get<std::vector<std::string>>(value(s, k));
}

std::string Deck::where(const std::string& name) const {
  const auto it = where_.find(name);
  return it != where_.end() ? it->second : origin_ + " (default value)";
}

void Deck::fail(const std::string& section, const std::string& key, const std::string& message) const {
  const std::string name = section + "." + key;
  const Value& v = value(section, key);
  const std::size_t entries = std::visit(
      [](const auto& x) -> std::size_t {
        if constexpr (std::is_arithmetic_v<std::decay_t<decltype(x)>> ||
                      std::is_same_v<std::decay_t<decltype(x)>, std::string>)
          return 0;
        else
          return x.size();
      },
      v);
  throw DeckError(where(name) + ": key '" + name + "' = " + excerpt(to_text(v), entries) + ": " + message);
}

std::string Deck::resolved_text() const {
  std::vector<std::string> sections;
  for (const auto& spec : schema_->keys())
    if (std::find(sections.begin(), sections.end(), spec.section) == sections.end()) sections.push_back(spec.section);
  std::ostringstream out;
  for (const auto& section : sections) {
    out << (&section == &sections.front() ? "" : "\n") << "[" << section << "]\n";
    for (const auto& spec : schema_->keys())
      if (spec.section == section) out << spec.key << " = " << to_text(values_.at(spec.name())) << "\n";
  }
  return out.str();
}

std::vector<std::string> Deck::restart_conflicts(const Deck& checkpointed) const {
  std::vector<std::string> conflicts;
  for (const auto& spec : schema_->keys()) {
    if (spec.restart_may_change) continue;
    const auto theirs = checkpointed.values_.find(spec.name());
    const std::string mine = to_text(values_.at(spec.name()));
    const std::string was = theirs == checkpointed.values_.end() ? "(absent)" : to_text(theirs->second);
    if (mine != was) conflicts.push_back(spec.name() + " is " + mine + " here but " + was + " in the checkpoint");
  }
  return conflicts;
}

}  // namespace meridian::io
