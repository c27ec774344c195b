// Deck parsing: values are typed and checked, errors name the file, line and key.
#include <gtest/gtest.h>

#include "deck_for_tests.hpp"
#include "io/deck.hpp"
#include "io/toml_text.hpp"

using meridian::io::Deck;
using meridian::io::DeckError;
using meridian::io::Override;

namespace {

const meridian::io::Schema& advection_schema() { return meridian::testing::schema_of("advection"); }

std::string error_of(const std::string& text, const std::vector<Override>& overrides = {}) {
  try {
    Deck::from_text(text, "deck.toml", advection_schema(), overrides);
  } catch (const DeckError& e) {
    return e.what();
  }
  return "";
}

const std::string minimal = "[solver]\nkind = \"advection\"\n";

TEST(Deck, FillsDefaultsAndReadsValues) {
  const Deck deck = Deck::from_text(minimal + "[mesh]\nnx = 32\n", "deck.toml", advection_schema());
  EXPECT_EQ(deck.integer("mesh", "nx"), 32);
  EXPECT_EQ(deck.integer("mesh", "ny"), 64);
  EXPECT_DOUBLE_EQ(deck.real("advection", "courant"), 0.8);
}

TEST(Deck, UnknownKeyNamesLineKeyAndSuggestion) {
  const std::string e = error_of(minimal + "[mesh]\nnxx = 32\n");
  EXPECT_NE(e.find("deck.toml:4"), std::string::npos) << e;
  EXPECT_NE(e.find("mesh.nxx"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'nx'"), std::string::npos) << e;
}

TEST(Deck, WrongTypeIsRejected) {
  const std::string e = error_of(minimal + "[mesh]\nnx = \"big\"\n");
  EXPECT_NE(e.find("mesh.nx"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer"), std::string::npos) << e;
}

TEST(Deck, OutOfRangeNamesTheBounds) {
  const std::string e = error_of(minimal + "[advection]\ncourant = 0\n");
  EXPECT_NE(e.find("advection.courant"), std::string::npos) << e;
  EXPECT_NE(e.find("> 0"), std::string::npos) << e;
}

TEST(Deck, ChoicesAreListed) {
  const std::string e = error_of(minimal + "[advection]\nwind = \"hurricane\"\n");
  EXPECT_NE(e.find("one of uniform rotation deformation"), std::string::npos) << e;
}

TEST(Deck, OverridesAreCheckedLikeTheFile) {
  const Deck deck = Deck::from_text(minimal, "deck.toml", advection_schema(), {Override::parse("mesh.nx=128")});
  EXPECT_EQ(deck.integer("mesh", "nx"), 128);
  const std::string e = error_of(minimal, {Override::parse("mesh.nx=-4")});
  EXPECT_NE(e.find("--set mesh.nx"), std::string::npos) << e;
  const Deck words = Deck::from_text(minimal, "deck.toml", advection_schema(), {Override::parse("advection.wind=uniform")});
  EXPECT_EQ(words.string("advection", "wind"), "uniform");
}

TEST(Deck, ResolvedTextReadsBackToTheSameDeck) {
  const Deck deck = Deck::from_text(minimal + "[mesh]\nny = 48\n[run]\nend_time = 0.3\n", "deck.toml", advection_schema());
  const Deck again = Deck::from_text(deck.resolved_text(), "resolved", advection_schema());
  EXPECT_EQ(again.resolved_text(), deck.resolved_text());
  EXPECT_TRUE(again.restart_conflicts(deck).empty());
}

TEST(Deck, RestartMayChangeTheEndTimeButNotTheGrid) {
  const Deck a = Deck::from_text(minimal, "a", advection_schema());
  const Deck later = Deck::from_text(minimal + "[run]\nend_time = 5.0\n", "b", advection_schema());
  const Deck finer = Deck::from_text(minimal + "[mesh]\nnx = 128\n", "c", advection_schema());
  EXPECT_TRUE(later.restart_conflicts(a).empty());
  ASSERT_EQ(finer.restart_conflicts(a).size(), 1u);
  EXPECT_NE(finer.restart_conflicts(a)[0].find("mesh.nx"), std::string::npos);
}

std::string long_list(const std::string& entry, int count) {
  std::string list = "[" + entry;
  for (int i = 1; i < count; ++i) list += ", " + entry;
  return list + "]";
}

// toml11 copies the current line for every alternative it tries, so a list on one line parsed in
// quadratic time (50 000 entries: about 70 s); the list is read whole, and what follows it still
// has its own line number, in the deck's messages and in toml11's excerpts.
TEST(Deck, LongListOnOneLineIsReadWholeAndLaterLinesKeepTheirNumbers) {
  const std::string deck_text = minimal + "[mesh]\nprocess_grid = " + long_list("1", 50000) + "\n";
  const Deck deck = Deck::from_text(deck_text, "deck.toml", advection_schema());
  EXPECT_EQ(deck.integers("mesh", "process_grid").size(), 50000u);
  const std::string unknown = error_of(deck_text + "nxx = 3\n");
  EXPECT_NE(unknown.find("deck.toml:5: unknown key 'mesh.nxx'"), std::string::npos) << unknown.substr(0, 300);
  const std::string syntax = error_of(deck_text + "nx = = 3\n");
  EXPECT_NE(syntax.find(" 5 | nx = = 3"), std::string::npos) << syntax.substr(0, 300);
}

TEST(Deck, RejectionsQuoteLongValuesShortened) {
  const Deck deck = Deck::from_text(minimal + "[mesh]\nprocess_grid = " + long_list("2", 20000) + "\n", "deck.toml",
                                    advection_schema());
  try {
    deck.fail("mesh", "process_grid", "expected three entries");
    FAIL() << "fail() returned";
  } catch (const DeckError& e) {
    const std::string message = e.what();
    EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
    EXPECT_NE(message.find("deck.toml:4: key 'mesh.process_grid' = [2, 2"), std::string::npos) << message;
    EXPECT_NE(message.find("(20000 entries): expected three entries"), std::string::npos) << message;
  }
  const std::string word = error_of(minimal, {Override::parse("advection.wind=" + std::string(5000, 'x'))});
  EXPECT_LT(word.size(), 400u);
  EXPECT_NE(word.find("(5000 characters)"), std::string::npos) << word;
}

// Only commas of arrays on long lines become line breaks: never one inside a string, a comment or
// an inline table (where TOML forbids a newline), and short lines pass unchanged.
TEST(Deck, LongLinesBreakOnlyBetweenArrayEntries) {
  const std::string line = "a = [\"x,[y]\", 'p,q', {b = [1, 2], c = \"\"\"m,\n,n\"\"\"}, 3] # k, l\n";
  const meridian::io::TomlText text(line + "z = [1, 2]\n", 10);
  EXPECT_EQ(text.text(),
            "a = [\"x,[y]\",\n 'p,q',\n {b = [1, 2], c = \"\"\"m,\n,n\"\"\"},\n 3] # k, l\nz = [1, 2]\n");
  EXPECT_EQ(text.source_line(3), 1);
  EXPECT_EQ(text.source_line(4), 2);
  EXPECT_EQ(text.source_line(6), 3);
  EXPECT_EQ(meridian::io::TomlText(line).text(), line);
}

// toml11 reads out of bounds on invalid UTF-8 inside a literal string (the fuzzer's first find):
// such a deck is refused, with its line, before toml11 sees it.
TEST(Deck, InvalidUtf8IsRefusedWithItsLine) {
  const std::string e = error_of(minimal + "[advection]\nwind = 'ro\xa3tation'\n");
  EXPECT_NE(e.find("deck.toml:4: not valid UTF-8 at column 11"), std::string::npos) << e;
  EXPECT_EQ(meridian::io::first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\x8d"), std::string::npos);
  for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"})
    EXPECT_EQ(meridian::io::first_invalid_utf8(std::string("ok ") + bad), 3u) << bad;
}

}  // namespace
