// The peer side of `make bench-peer`: boardgame.io 0.50.2's server (server.js, a child
// process) and N concurrent matches of the bench's duel (game.js) played by boardgame.io's
// own client (boardgame.io/client + its socket.io transport, boardgame.io/multiplayer): one
// client, so one socket, per player; a pair plays games back to back on its two sockets
// (the client's updateMatchID: one sync on the same socket), as our bench's pairs do on
// their two WebSockets (bench/workloads.py throughput).
//
//   node driver.js [--levels 1,10,100,300] [--window 8] [--lifecycle 50 [--lifecycle-window 20]]
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
const { spawn, execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const net = require('net');
const path = require('path');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Duel, digest, ROUNDS, CHOICES } = require('./game');

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const GAME_TIMEOUT_MS = 30000;

function parseArgs(argv) {
  const out = { levels: [1, 10, 100, 300], window: 8, maxRate: 3000, lifecycle: 0,
    lifecycleWindow: 20, warmup: 4 };
  for (let i = 0; i < argv.length; i += 1) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--levels') { out.levels = v.split(',').filter(Boolean).map(Number); i += 1; }
    else if (k === '--window') { out.window = Number(v); i += 1; }
    else if (k === '--max-rate') { out.maxRate = Number(v); i += 1; }
    else if (k === '--lifecycle') { out.lifecycle = Number(v); i += 1; }
    else if (k === '--lifecycle-window') { out.lifecycleWindow = Number(v); i += 1; }
    else throw new Error(`unknown argument ${k}`);
  }
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

function startServer(port) {
  const child = spawn(process.execPath, [path.join(__dirname, 'server.js'), String(port)],
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

function procTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime
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
  async game(host, guest) {
    const { matchID } = await this.post('/games/duel/create', { numPlayers: 2 });
    const a = await this.post(`/games/duel/${matchID}/join`, { playerID: '0', playerName: host });
    const b = await this.post(`/games/duel/${matchID}/join`, { playerID: '1', playerName: guest });
    return { matchID, creds: [a.playerCredentials, b.playerCredentials] };
  }
}

class Stats {
  constructor() { this.clear(); this.recording = false; }

  clear() { this.moves = []; this.rounds = []; this.nRounds = 0; this.nMoves = 0; this.errors = 0; }
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
      const timer = setTimeout(() => { this.done = null; resolve(false); }, GAME_TIMEOUT_MS);
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
async function level(server, lobby, serverPid, n, args) {
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
  const s0 = procTicks(serverPid);
  const d0 = process.cpuUsage();
  const m0 = machineTicks();
  const t0 = now();
  stats.recording = true;
  const windowEnd = t0 + args.window * 1000;
  while (now() < windowEnd && ranOut === 0) await sleep(50);
  stats.recording = false;
  const t1 = now();
  const s1 = procTicks(serverPid);
  const d1 = process.cpuUsage();
  const m1 = machineTicks();
  stopAt = 0;
  await Promise.all(running);
  for (const [a, b] of pairs) { a.stop(); b.stop(); }
  const secs = (t1 - t0) / 1000;
  const serverCpuS = (s1 - s0) / CLK_TCK;
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
async function lifecycle(server, lobby, serverPid, n, args) {
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
  const s0 = procTicks(serverPid);
  const d0 = process.cpuUsage();
  const m0 = machineTicks();
  const w0 = now();
  await sleep(Math.max(0, stopAt - w0));
  const w1 = now();
  const s1 = procTicks(serverPid);
  const d1 = process.cpuUsage();
  const m1 = machineTicks();
  await Promise.all(running);
  const done = times.filter(([t]) => t >= w0 && t < w1).map(([, d]) => d);
  const secs = (w1 - w0) / 1000;
  const serverCpuS = (s1 - s0) / CLK_TCK;
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

function report(results) {
  console.log('\nPeer: boardgame.io 0.50.2 (socket.io, in-memory storage), duel 5 rounds, 2 seats,'
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

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const port = await freePort();
  const child = await startServer(port);
  const base = `http://127.0.0.1:${port}`;
  const results = [];
  const lc = [];
  try {
    for (const n of args.levels) {
      process.stderr.write(`[peer] ${n} concurrent matches, ${args.window} s window\n`);
      const r = await level(base, new Lobby(base), child.pid, n, args);
      process.stderr.write(`[peer]   ${r.rounds_per_s.toFixed(0)} rounds/s, move p50/p99 `
        + `${f1(r.move_ms.p50)}/${f1(r.move_ms.p99)} ms, errors ${r.errors}\n`);
      results.push(r);
    }
    if (args.lifecycle > 0) {
      process.stderr.write(`[peer] lifecycle: ${args.lifecycle} concurrent, `
        + `${args.lifecycleWindow} s\n`);
      const r = await lifecycle(base, new Lobby(base), child.pid, args.lifecycle, args);
      process.stderr.write(`[peer]   ${r.matches_per_s.toFixed(1)} matches/s, errors ${r.errors}\n`);
      lc.push(r);
    }
  } finally {
    child.kill('SIGTERM');
  }
  report(results);
  if (lc.length) reportLifecycle(lc);
  console.log(`PEER-JSON ${JSON.stringify({
    peer: 'boardgame.io', version: require('boardgame.io/package.json').version,
    node: process.version, levels: results, lifecycle: lc,
  })}`);
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(1); });
