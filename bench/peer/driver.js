// The peer side of `make bench-peer`: boardgame.io 0.50.2's server (server.js, a child
// process) and N concurrent matches of the bench's duel (game.js) played by boardgame.io's
// own client (boardgame.io/client + its socket.io transport, boardgame.io/multiplayer): one
// client, so one socket, per player; a pair plays games back to back on its two sockets
// (the client's updateMatchID: one sync on the same socket), as our bench's pairs do on
// their two WebSockets (bench/workloads.py throughput).
//
//   node driver.js [--levels 1,10,100,300] [--window 8] [--lifecycle 50 [--lifecycle-window 20]]
//       [--store memory|postgres] [--pg-url postgres://postgres@127.0.0.1:5432/postgres]
//       [--long-rounds 512 [--long-matches 1]]
//
// --store postgres: the server stores matches with bgio-postgres 1.0.16 in a database this
// driver creates on --pg-url's server (bench_peer_<random>) and drops at the end; the server's
// CPU then counts PostgreSQL's processes too (the backends of that database and the server's
// own background processes: checkpointer, WAL writer, ...).
// --long-rounds N: after the levels, --long-matches matches of N rounds each, one pair per
// match; the cost of a round (CPU per round of the server, wall ms per round of a match)
// in a band of rounds around round 25 (move 100: 4 moves per round) and around round 500
// (move 2,000).
//
// Games come from a pool created through boardgame.io's lobby API before the window (create,
// join seat 0, join seat 1). The N matches start spread over min(2 s, N x 10 ms); the window
// opens 1 s after the last start and lasts --window s (or until a pair runs out of games).
// A round counts when seat 0 receives the state in which it is scored. move latency: a move
// sent -> the server's state carrying it arrives at its player; round latency: seat 0's
// commit sent -> the state with that round scored arrives at seat 0 (our submit->reveal).
// CPU: /proc times of the server process and of this driver over the window.
// Prints a table, then one line `PEER-JSON {...}` (bench/peer/__init__.py parses it).
'use strict';
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const net = require('net');
const path = require('path');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Duel, digest, ROUNDS, CHOICES } = require('./game');

const GAME_TIMEOUT_MS = 30000;
// the long-match bands: [first, last] rounds completed, around move 100 and move 2,000
const BANDS = [{ move: 100, from: 15, to: 35 }, { move: 2000, from: 490, to: 510 }];

function parseArgs(argv) {
  const out = { levels: [1, 10, 100, 300], window: 8, maxRate: 3000, lifecycle: 0,
    lifecycleWindow: 20, warmup: 4, store: 'memory',
    pgUrl: 'postgres://postgres@127.0.0.1:5432/postgres', longRounds: 0, longMatches: 1 };
  for (let i = 0; i < argv.length; i += 1) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--levels') { out.levels = (v || '').split(',').filter(Boolean).map(Number); i += 1; }
    else if (k === '--window') { out.window = Number(v); i += 1; }
    else if (k === '--max-rate') { out.maxRate = Number(v); i += 1; }
    else if (k === '--lifecycle') { out.lifecycle = Number(v); i += 1; }
    else if (k === '--lifecycle-window') { out.lifecycleWindow = Number(v); i += 1; }
    else if (k === '--store') { out.store = v; i += 1; }
    else if (k === '--pg-url') { out.pgUrl = v; i += 1; }
    else if (k === '--long-rounds') { out.longRounds = Number(v); i += 1; }
    else if (k === '--long-matches') { out.longMatches = Number(v); i += 1; }
    else throw new Error(`unknown argument ${k}`);
  }
  if (out.store !== 'memory' && out.store !== 'postgres') throw new Error('--store memory|postgres');
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

function startServer(port, dbUrl) {
  const child = spawn(process.execPath,
    [path.join(__dirname, 'server.js'), String(port), ...(dbUrl ? [dbUrl] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('READY')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`peer server exited ${code}`)));
  });
}

// CPU seconds a process has run, every thread (/proc/<pid>/task/*/schedstat: nanoseconds,
// where /proc/<pid>/stat counts 10 ms ticks, too coarse for a band of a long match)
function taskSeconds(pid) {
  let ns = 0;
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      try { ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); }
      catch (e) { /* the thread ended */ }
    }
  } catch (e) { /* the process ended */ }
  return ns / 1e9;
}

// The processes that serve the peer: its node server and, with --store postgres, PostgreSQL's
// postmaster and its children but the backends of other databases. serverCpu() is their CPU
// seconds so far (a process that starts later counts from 0; one that ended keeps its last).
class ServerCpu {
  constructor(serverPid, dbName) {
    this.serverPid = serverPid;
    this.dbName = dbName;
    this.seen = new Map(); // pid -> last seconds
    this.postmaster = null;
    if (dbName) {
      for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        const cmd = readCmd(p);
        if (cmd !== null && /\/postgres(\s|$)/.test(cmd.split(' -')[0]) && cmd.includes(' -D ')) {
          this.postmaster = Number(p);
        }
      }
      if (this.postmaster === null) throw new Error('no PostgreSQL postmaster found in /proc');
    }
  }

  pids() {
    const out = [this.serverPid];
    if (this.postmaster === null) return out;
    out.push(this.postmaster);
    for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      const stat = readStat(p);
      if (stat === null || Number(stat[1]) !== this.postmaster) continue;
      const cmd = readCmd(p) || '';
      const backend = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(cmd);
      if (!backend || cmd.includes(` ${this.dbName} `)) out.push(Number(p));
    }
    return out;
  }

  read() {
    for (const pid of this.pids()) this.seen.set(pid, taskSeconds(pid));
    let total = 0;
    for (const v of this.seen.values()) total += v;
    return total;
  }
}

function readCmd(pid) {
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim(); }
  catch (e) { return null; }
}

function readStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch (e) { return null; }
}

function machineTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1)
    .map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { total, idle: f[3] + f[4] };
}

function pct(sorted, q) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 0.5), p95: pct(s, 0.95), p99: pct(s, 0.99) };
}

async function limited(n, thunks) {
  const out = new Array(thunks.length);
  let next = 0;
  async function worker() {
    while (next < thunks.length) { const i = next; next += 1; out[i] = await thunks[i](); }
  }
  await Promise.all(Array.from({ length: Math.min(n, thunks.length) }, worker));
  return out;
}

class Lobby {
  constructor(base) { this.base = base; }

  async post(p, body) {
    const res = await fetch(this.base + p, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${p}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }

  // a table: created, seat 0 joined by the host, seat 1 by the guest
  async game(host, guest, setupData) {
    const { matchID } = await this.post('/games/duel/create',
      { numPlayers: 2, ...(setupData ? { setupData } : {}) });
    const a = await this.post(`/games/duel/${matchID}/join`, { playerID: '0', playerName: host });
    const b = await this.post(`/games/duel/${matchID}/join`, { playerID: '1', playerName: guest });
    return { matchID, creds: [a.playerCredentials, b.playerCredentials] };
  }
}

class Stats {
  constructor() { this.clear(); this.recording = false; }

  clear() {
    this.moves = []; this.rounds = []; this.nRounds = 0; this.nMoves = 0; this.errors = 0;
    this.marks = null; // [matchID, rounds completed, ms] per round seen by seat 0 (long match)
  }
}

class Player {
  constructor(server, seat, stats) {
    this.server = server;
    this.seat = seat;
    this.stats = stats;
    this.client = null;
    this.synced = false;
  }

  // plays one game to its end; resolves true, or false when it stalled (an error)
  play(matchID, credentials) {
    this.matchID = matchID;
    this.round = -1; // the round this player committed in
    this.revealed = -1;
    this.seen = 0; // rounds scored, as seen
    this.pending = null; // {kind, round, t}
    this.sent = {}; // round -> commit send time (seat 0's round latency)
    this.synced = false;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.done = null; resolve(false); },
        this.timeoutMs || GAME_TIMEOUT_MS);
      this.done = (ok) => { clearTimeout(timer); this.done = null; resolve(ok); };
      if (this.client === null) {
        this.client = Client({
          game: Duel, numPlayers: 2, matchID, playerID: String(this.seat), credentials,
          debug: false, multiplayer: SocketIO({ server: this.server }),
        });
        this.client.subscribe(() => this.onState());
        this.client.start();
        // the transport's own 'sync' listener has dispatched the state when this one runs
        this.client.transport.socket.on('sync', (id) => {
          if (id === this.matchID) { this.synced = true; this.onState(); }
        });
      } else {
        this.client.updateMatchID(matchID);
      }
    });
  }

  move(kind, ...args) {
    this.pending = { kind, round: args[0], t: now() };
    this.client.moves[kind](...args);
  }

  onState() {
    if (!this.synced || this.done === null || this.done === undefined) return;
    const st = this.client.getState();
    if (!st || this.client.matchID !== this.matchID) return;
    const { G, ctx } = st;
    const me = String(this.seat);
    const t = now();
    const p = this.pending;
    if (p !== null) {
      const landed = G.round > p.round ||
        (p.kind === 'commit' ? G.commits[me] !== undefined : G.reveals[me] !== undefined);
      if (landed) {
        this.pending = null;
        if (this.stats.recording) { this.stats.moves.push(t - p.t); this.stats.nMoves += 1; }
      }
    }
    while (this.seen < G.round) {
      if (this.seat === 0 && this.stats.marks !== null) {
        this.stats.marks.push([this.matchID, this.seen + 1, t]);
      }
      if (this.seat === 0 && this.stats.recording) {
        this.stats.nRounds += 1;
        if (this.sent[this.seen] !== undefined) this.stats.rounds.push(t - this.sent[this.seen]);
      }
      this.seen += 1;
    }
    if (ctx.gameover !== undefined) { this.done(true); return; }
    if (this.pending !== null) return;
    const r = G.round;
    if (this.round !== r) {
      this.round = r;
      this.choice = crypto.randomInt(CHOICES);
      this.nonce = crypto.randomBytes(16).toString('hex');
      this.sent[r] = t;
      this.move('commit', r, digest(this.choice, this.nonce));
    } else if (this.revealed !== r && G.commits['0'] !== undefined &&
               G.commits['1'] !== undefined) {
      this.revealed = r;
      this.move('reveal', r, this.choice, this.nonce);
    }
  }

  stop() { if (this.client !== null) this.client.stop(); }
}

// The pool: games enough for each pair at --max-rate rounds/s for all (3,000: twice the
// peer's best seen, as the event loop does not share it evenly: at 1,500 one pair of 100 ran
// out 5 s into a window).
async function level(server, lobby, cpu, n, args) {
  const spreadMs = Math.min(2000, n * 10);
  const perPair = Math.max(3, Math.ceil((args.maxRate * (spreadMs / 1000 + 2 + args.window)) /
    ROUNDS / n) + 2);
  const tag = `${n}-${crypto.randomBytes(3).toString('hex')}`;
  const pools = await limited(32, Array.from({ length: n }, (_, i) => async () => {
    const games = [];
    for (let g = 0; g < perPair; g += 1) games.push(await lobby.game(`h${tag}-${i}`, `g${tag}-${i}`));
    return games;
  }));
  const stats = new Stats();
  const pairs = pools.map(() => [new Player(server, 0, stats), new Player(server, 1, stats)]);
  let stopAt = Infinity;
  let ranOut = 0;
  const runPair = async ([host, guest], games, delay) => {
    await sleep(delay);
    for (const g of games) {
      if (now() >= stopAt) return;
      const ok = await Promise.all([host.play(g.matchID, g.creds[0]), guest.play(g.matchID, g.creds[1])]);
      if (!ok[0] || !ok[1]) stats.errors += 1;
    }
    if (now() < stopAt) ranOut += 1;
  };
  const running = pairs.map((pair, i) => runPair(pair, pools[i], n > 1 ? (spreadMs * i) / (n - 1) : 0));
  await sleep(spreadMs + 1000);
  const s0 = cpu.read();
  const d0 = process.cpuUsage();
  const m0 = machineTicks();
  const t0 = now();
  stats.recording = true;
  const windowEnd = t0 + args.window * 1000;
  while (now() < windowEnd && ranOut === 0) await sleep(50);
  stats.recording = false;
  const t1 = now();
  const s1 = cpu.read();
  const d1 = process.cpuUsage();
  const m1 = machineTicks();
  stopAt = 0;
  await Promise.all(running);
  for (const [a, b] of pairs) { a.stop(); b.stop(); }
  const secs = (t1 - t0) / 1000;
  const serverCpuS = s1 - s0;
  const driverCpuS = (d1.user - d0.user + d1.system - d0.system) / 1e6;
  const machineBusy = 1 - (m1.idle - m0.idle) / Math.max(1, m1.total - m0.total);
  const cores = require('os').cpus().length;
  const oursPct = (100 * (serverCpuS + driverCpuS)) / secs;
  const rounds = stats.nRounds;
  return {
    matches: n,
    window_s: Math.round(secs * 100) / 100,
    rounds,
    rounds_per_s: rounds / secs,
    moves_per_s: stats.nMoves / secs,
    move_ms: summary(stats.moves),
    round_ms: summary(stats.rounds),
    cpu_pct: { server: (100 * serverCpuS) / secs, driver: (100 * driverCpuS) / secs },
    cpu_ms_per_round: {
      server: rounds ? (1000 * serverCpuS) / rounds : null,
      driver: rounds ? (1000 * driverCpuS) / rounds : null,
    },
    machine_pct: 100 * machineBusy,
    other_pct: Math.max(0, 100 * machineBusy * cores - oursPct),
    errors: stats.errors,
    ran_out: ranOut,
    games_per_pair: perPair,
  };
}

// Complete matches/s with n matches in flight (our bench/workloads.py lifecycle): create the
// match, seat 0 and seat 1 join (the lobby API), both open a new client (a new socket) and
// sync, 5 rounds, both close. Starts spread over a second; measured after a warm-up.
async function lifecycle(server, lobby, cpu, n, args) {
  const tag = `l${n}-${crypto.randomBytes(3).toString('hex')}`;
  const stats = new Stats();
  const times = [];
  let errors = 0;
  const t00 = now();
  const stopAt = t00 + (args.warmup + args.lifecycleWindow) * 1000;
  const loop = async (i) => {
    await sleep((1000 * i) / n);
    while (now() < stopAt) {
      const t = now();
      try {
        const g = await lobby.game(`h${tag}-${i}`, `g${tag}-${i}`);
        const a = new Player(server, 0, stats);
        const b = new Player(server, 1, stats);
        const ok = await Promise.all([a.play(g.matchID, g.creds[0]), b.play(g.matchID, g.creds[1])]);
        a.stop();
        b.stop();
        if (ok[0] && ok[1]) times.push([now(), now() - t]);
        else errors += 1;
      } catch (e) {
        errors += 1;
      }
    }
  };
  const running = Array.from({ length: n }, (_, i) => loop(i));
  await sleep(args.warmup * 1000);
  const s0 = cpu.read();
  const d0 = process.cpuUsage();
  const m0 = machineTicks();
  const w0 = now();
  await sleep(Math.max(0, stopAt - w0));
  const w1 = now();
  const s1 = cpu.read();
  const d1 = process.cpuUsage();
  const m1 = machineTicks();
  await Promise.all(running);
  const done = times.filter(([t]) => t >= w0 && t < w1).map(([, d]) => d);
  const secs = (w1 - w0) / 1000;
  const serverCpuS = s1 - s0;
  const driverCpuS = (d1.user - d0.user + d1.system - d0.system) / 1e6;
  const machineBusy = 1 - (m1.idle - m0.idle) / Math.max(1, m1.total - m0.total);
  return {
    concurrency: n,
    window_s: Math.round(secs * 100) / 100,
    matches: done.length,
    matches_per_s: done.length / secs,
    match_ms: summary(done),
    cpu_ms_per_match: {
      server: done.length ? (1000 * serverCpuS) / done.length : null,
      driver: done.length ? (1000 * driverCpuS) / done.length : null,
    },
    machine_pct: 100 * machineBusy,
    other_pct: Math.max(0, 100 * machineBusy * require('os').cpus().length
      - (100 * (serverCpuS + driverCpuS)) / secs),
    errors,
  };
}

// The long match: --long-matches matches of --long-rounds rounds at once, one pair each; the
// server's CPU sampled every 100 ms. Per band (BANDS): the wall ms per round of each match
// between the band's first and last round (median over matches), and the server's CPU over
// the median times those rounds were reached, per round completed by any match meanwhile.
function bandFigures(marks, samples, bands) {
  const byMatch = new Map();
  for (const [id, r, t] of marks) {
    if (!byMatch.has(id)) byMatch.set(id, new Map());
    byMatch.get(id).set(r, t);
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const cpuAt = (t) => { // linear between the samples around t
    let prev = samples[0];
    for (const cur of samples) {
      if (cur[0] >= t) {
        if (cur[0] === prev[0]) return cur[1];
        return prev[1] + ((cur[1] - prev[1]) * (t - prev[0])) / (cur[0] - prev[0]);
      }
      prev = cur;
    }
    return prev[1];
  };
  return bands.map((b) => {
    const ends = [...byMatch.values()].filter((m) => m.has(b.from) && m.has(b.to));
    if (!ends.length) return { ...b, rounds: 0, wall_ms_per_round: null, cpu_ms_per_round: null };
    const ta = median(ends.map((m) => m.get(b.from)));
    const tb = median(ends.map((m) => m.get(b.to)));
    const rounds = marks.filter(([, , t]) => t > ta && t <= tb).length;
    return {
      ...b,
      rounds,
      wall_ms_per_round: median(ends.map((m) => (m.get(b.to) - m.get(b.from)) / (b.to - b.from))),
      cpu_ms_per_round: rounds ? (1000 * (cpuAt(tb) - cpuAt(ta))) / rounds : null,
    };
  });
}

async function longMatch(server, lobby, cpu, args) {
  const tag = `long-${crypto.randomBytes(3).toString('hex')}`;
  const stats = new Stats();
  stats.marks = [];
  const samples = [[now(), cpu.read()]];
  const timer = setInterval(() => samples.push([now(), cpu.read()]), 100);
  const t0 = now();
  let errors = 0;
  await Promise.all(Array.from({ length: args.longMatches }, async (_, i) => {
    const g = await lobby.game(`h${tag}-${i}`, `g${tag}-${i}`, { rounds: args.longRounds });
    const a = new Player(server, 0, stats);
    const b = new Player(server, 1, stats);
    a.timeoutMs = b.timeoutMs = 3600 * 1000;
    const ok = await Promise.all([a.play(g.matchID, g.creds[0]), b.play(g.matchID, g.creds[1])]);
    if (!ok[0] || !ok[1]) errors += 1;
    a.stop();
    b.stop();
  }));
  clearInterval(timer);
  samples.push([now(), cpu.read()]);
  return {
    matches: args.longMatches,
    rounds_per_match: args.longRounds,
    seconds: (now() - t0) / 1000,
    errors,
    bands: bandFigures(stats.marks, samples, BANDS.filter((b) => b.to <= args.longRounds)),
  };
}

const f1 = (x) => (x === null || x === undefined ? '-' : x.toFixed(1));
const f2 = (x) => (x === null || x === undefined ? '-' : x.toFixed(2));
const lat = (s) => (s.n ? `${f1(s.p50)}/${f1(s.p95)}/${f1(s.p99)}` : '-');

function table(header, rows) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = header.map((h, i) => h.padEnd(w[i])).join('  ');
  return [line, '-'.repeat(line.length),
    ...rows.map((r) => r.map((c, i) => c.padEnd(w[i])).join('  '))].join('\n');
}

function reportLifecycle(lc) {
  console.log('\nPeer lifecycle (create, join, join, 2 new sockets, 5 rounds, close)');
  console.log(table(['side', 'concurrent', 'matches/s', 'match p50/95/99 ms',
    'server CPU ms/match', 'driver CPU ms/match', 'machine%', 'other%', 'errors'],
  lc.map((r) => ['peer', String(r.concurrency), r.matches_per_s.toFixed(1), lat(r.match_ms),
    f2(r.cpu_ms_per_match.server), f2(r.cpu_ms_per_match.driver), r.machine_pct.toFixed(0),
    r.other_pct.toFixed(0), String(r.errors)])));
}

function report(results, store) {
  console.log(`\nPeer: boardgame.io 0.50.2 (socket.io, ${store === 'postgres' ? 'bgio-postgres 1.0.16 on PostgreSQL' : 'in-memory storage'}), duel 5 rounds, 2 seats,`
    + ' 4 moves per round; latencies ms');
  console.log(table(
    ['side', 'matches', 'rounds/s', 'moves/s', 'move p50/95/99 ms', 'round p50/95/99 ms',
      'CPU% server/drv', 'machine%', 'other%', 'errors'],
    results.map((r) => ['peer', String(r.matches), r.rounds_per_s.toFixed(0),
      r.moves_per_s.toFixed(0), lat(r.move_ms), lat(r.round_ms),
      `${r.cpu_pct.server.toFixed(0)}/${r.cpu_pct.driver.toFixed(0)}`, r.machine_pct.toFixed(0),
      r.other_pct.toFixed(0), String(r.errors)]),
  ));
  console.log('\nPeer CPU ms per completed round');
  console.log(table(['side', 'matches', 'server', 'driver', 'total'], results.map((r) => [
    'peer', String(r.matches), f2(r.cpu_ms_per_round.server), f2(r.cpu_ms_per_round.driver),
    f2(r.cpu_ms_per_round.server === null ? null
      : r.cpu_ms_per_round.server + r.cpu_ms_per_round.driver)])));
}

// With --store postgres: a fresh database on --pg-url's server, dropped by the returned
// function (its connections closed first: WITH (FORCE)).
async function freshDatabase(pgUrl) {
  const { Client: PgClient } = require('pg');
  const name = `bench_peer_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new PgClient({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    const c = new PgClient({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
  return { name, url: url.toString(), drop };
}

function reportLong(lm) {
  console.log(`\nPeer long match (${lm.matches} x ${lm.rounds_per_match} rounds, store `
    + `${lm.store}): cost of a round around move N (4 moves per round)`);
  console.log(table(['side', 'move', 'rounds', 'server CPU ms/round', 'wall ms/round'],
    lm.bands.map((b) => ['peer', `${b.move} (rounds ${b.from}-${b.to})`, String(b.rounds),
      f2(b.cpu_ms_per_round), f2(b.wall_ms_per_round)])));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const port = await freePort();
  const db = args.store === 'postgres' ? await freshDatabase(args.pgUrl) : null;
  let child = null;
  const results = [];
  const lc = [];
  let long = null;
  // stopped from outside (bench/peer/__init__.py on its timeout): the server and the
  // database go too
  process.once('SIGTERM', async () => {
    if (child !== null) child.kill('SIGTERM');
    try { if (db !== null) await db.drop(); } finally { process.exit(143); }
  });
  try {
    child = await startServer(port, db === null ? null : db.url);
    const base = `http://127.0.0.1:${port}`;
    const cpu = new ServerCpu(child.pid, db === null ? null : db.name);
    for (const n of args.levels) {
      process.stderr.write(`[peer ${args.store}] ${n} concurrent matches, ${args.window} s window\n`);
      const r = await level(base, new Lobby(base), cpu, n, args);
      process.stderr.write(`[peer]   ${r.rounds_per_s.toFixed(0)} rounds/s, move p50/p99 `
        + `${f1(r.move_ms.p50)}/${f1(r.move_ms.p99)} ms, errors ${r.errors}\n`);
      results.push(r);
    }
    if (args.lifecycle > 0) {
      process.stderr.write(`[peer] lifecycle: ${args.lifecycle} concurrent, `
        + `${args.lifecycleWindow} s\n`);
      const r = await lifecycle(base, new Lobby(base), cpu, args.lifecycle, args);
      process.stderr.write(`[peer]   ${r.matches_per_s.toFixed(1)} matches/s, errors ${r.errors}\n`);
      lc.push(r);
    }
    if (args.longRounds > 0) {
      process.stderr.write(`[peer ${args.store}] long match: ${args.longMatches} x `
        + `${args.longRounds} rounds\n`);
      long = { store: args.store, ...await longMatch(base, new Lobby(base), cpu, args) };
    }
  } finally {
    if (child !== null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
    }
    if (db !== null) await db.drop();
  }
  if (results.length) report(results, args.store);
  if (lc.length) reportLifecycle(lc);
  if (long !== null) reportLong(long);
  console.log(`PEER-JSON ${JSON.stringify({
    peer: 'boardgame.io', version: require('boardgame.io/package.json').version,
    store: args.store,
    ...(args.store === 'postgres' ? {
      store_version: require('bgio-postgres/package.json').version,
    } : {}),
    node: process.version, levels: results, lifecycle: lc, long_match: long,
  })}`);
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(1); });
