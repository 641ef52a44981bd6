// Each game's component data (maps, cards and their text) from the server's data modules
// (GET /api/games/{game}/components): the page never keeps its own copy of card text.

import { api } from "./api.js";

const cache = new Map();

export function loadComponents(game) {
  if (!cache.has(game)) {
    const p = api("GET", `/api/games/${encodeURIComponent(game)}/components`);
    p.catch(() => cache.delete(game));
    cache.set(game, p);
  }
  return cache.get(game);
}
