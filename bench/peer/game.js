// The bench's game for boardgame.io (the peer of `make bench-peer`): the 2-seat commit/reveal
// duel our bench plays (bench/driver.py: duel, 5 rounds, both seats pick 0-9 each round).
// Each round both seats commit sha256(choice:nonce), then both reveal; the server checks each
// reveal against its commitment and scores the round when both are in (higher pick scores).
// 4 client moves per round. A match created with setupData {rounds: N} plays N rounds (the
// long-match run: the cost of a move at move 100 and at move 2,000 of one match). Moves run on the server only (client: false): a commit/reveal
// game cannot trust a client's state, and the client's latency is then the server's answer.
'use strict';
const crypto = require('crypto');
const { ActivePlayers, INVALID_MOVE } = require('boardgame.io/core');

const ROUNDS = 5;
const CHOICES = 10;

function digest(choice, nonce) {
  return crypto.createHash('sha256').update(`${choice}:${nonce}`).digest('hex');
}

function commit({ G, playerID }, round, hash) {
  if (round !== G.round || G.commits[playerID] !== undefined) return INVALID_MOVE;
  if (typeof hash !== 'string' || hash.length !== 64) return INVALID_MOVE;
  G.commits[playerID] = hash;
}

function reveal({ G, playerID }, round, choice, nonce) {
  if (round !== G.round || G.reveals[playerID] !== undefined) return INVALID_MOVE;
  if (G.commits['0'] === undefined || G.commits['1'] === undefined) return INVALID_MOVE;
  if (!Number.isInteger(choice) || choice < 0 || choice >= CHOICES) return INVALID_MOVE;
  if (typeof nonce !== 'string' || digest(choice, nonce) !== G.commits[playerID]) {
    return INVALID_MOVE;
  }
  G.reveals[playerID] = choice;
  if (G.reveals['0'] !== undefined && G.reveals['1'] !== undefined) {
    const [a, b] = [G.reveals['0'], G.reveals['1']];
    if (a > b) G.scores[0] += 1;
    else if (b > a) G.scores[1] += 1;
    G.history.push([a, b]);
    G.round += 1;
    G.commits = {};
    G.reveals = {};
  }
}

const Duel = {
  name: 'duel',
  minPlayers: 2,
  maxPlayers: 2,
  setup: (_, setupData) => ({
    rounds: (setupData && Number.isInteger(setupData.rounds)) ? setupData.rounds : ROUNDS,
    round: 0, commits: {}, reveals: {}, scores: [0, 0], history: [],
  }),
  turn: { activePlayers: ActivePlayers.ALL },
  // both seats move at once: a move is not refused for a state id the other seat moved past
  moves: {
    commit: { move: commit, client: false, ignoreStaleStateID: true },
    reveal: { move: reveal, client: false, ignoreStaleStateID: true },
  },
  endIf: ({ G }) => (G.round >= G.rounds ? { scores: G.scores } : undefined),
};

module.exports = { Duel, digest, ROUNDS, CHOICES };
