// Deck parsing: values are typed and checked, errors name the file, line and key.
#include <gtest/gtest.h>

#include "deck_for_tests.hpp"
#include "io/deck.hpp"

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

}  // namespace
