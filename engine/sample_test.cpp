// Random reachable positions (engine/sample.hpp): the count asked for, the game not over,
// the seed total kept, the same seed the same positions.
#include "testing/catch.hpp"

#include "engine/game.hpp"
#include "engine/sample.hpp"

using namespace kalah;

TEST_CASE("sample: positions hold the seeds asked for, reproducibly", "[sample]") {
  for (const Rules& rules : {Rules{}, Rules::preset("empty-capture"), Rules::preset("relay")}) {
    std::mt19937_64 a(5), b(5);
    for (int k : {40, 30, 24, 17, 8}) {
      INFO(rules.describe() << ", " << k << " seeds in the pits");
      const auto p = random_position(6, 4, k, rules, a);
      REQUIRE(p);
      CHECK(p->pit_seeds(Side::South) + p->pit_seeds(Side::North) == k);
      CHECK(p->total_seeds() == 48);
      CHECK_FALSE(Game(*p, rules).over());
      CHECK(random_position(6, 4, k, rules, b) == p);
    }
  }
  std::mt19937_64 rng(1);
  CHECK(random_position(6, 4, 48, Rules{}, rng) == Position::start(6, 4));
  CHECK_FALSE(random_position(6, 4, 49, Rules{}, rng));
}
