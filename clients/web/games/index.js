// Game name (shared/rules/registry.py) -> its board: render(view), action/choice labels.
import duel from "./duel.js";
import empire from "./empire.js";
import engine from "./empire_engine.js";
import end from "./empires_end.js";
import nyc from "./empire_nyc.js";
import cards from "./empire_cards.js";

export const GAMES = {
  duel, empire, "empire-engine": engine, "empires-end": end, "empire-nyc": nyc, "empire-cards": cards,
};
