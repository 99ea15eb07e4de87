#include "engine/sample.hpp"

#include "engine/game.hpp"

namespace kalah {

std::optional<Position> random_position(int pits, int seeds, int pit_seeds, const Rules& rules, std::mt19937_64& rng,
                                        int attempts) {
  const Position start = Position::start(pits, seeds);
  auto in_pits = [](const Position& p) { return p.pit_seeds(Side::South) + p.pit_seeds(Side::North); };
  if (pit_seeds > in_pits(start) || pit_seeds < 0) return std::nullopt;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    Game game(start, rules);
    while (!game.over() && in_pits(game.position()) > pit_seeds) {
      const std::vector<int> legal = game.legal_pits();
      game.sow(legal[std::uniform_int_distribution<std::size_t>(0, legal.size() - 1)(rng)]);
    }
    if (!game.over() && in_pits(game.position()) == pit_seeds) return game.position();
  }
  return std::nullopt;
}

}  // namespace kalah
