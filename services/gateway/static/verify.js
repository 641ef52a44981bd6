// The browser's twin of shared/fairness/verify.py: re-derive a finished game's fairness from
// its public record (GET /api/matches/<id>/record). Same checks, same problem texts, same
// counts; ``checks`` adds one row per item for the page (what was checked and whether it held).

import {
  canonical, commitment, commitmentsRoot, defaultCommitment, draw, gameKey, seedCommitment, unhex,
} from "./fairness.js";

// Python's str() of a JSON value as verify.py formats it (lists of ints: "[1, 2]").
function py(v) {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (Array.isArray(v)) return "[" + v.map((x) => (typeof x === "string" ? `'${x}'` : py(x))).join(", ") + "]";
  return String(v);
}
const same = (a, b) => a !== undefined && b !== undefined && canonical(a) === canonical(b);

export async function verifyRecord(doc) {
  const problems = [];
  const checks = [];
  const counts = { draws: 0, commitments: 0, rounds: 0, applied: 0 };
  const check = (kind, label, ok, detail = "") => { checks.push({ kind, label, ok, detail }); return ok; };
  try {
    await run(doc, problems, counts, check);
  } catch (exc) {
    problems.push("error: " + (exc && exc.message ? exc.message : String(exc)));
  }
  return { problems, counts, checks, ok: problems.length === 0 };
}

async function run(doc, problems, counts, check) {
  const gameId = doc.game_id;
  const record = doc.record;
  const types = record.map((e) => e.type);
  const created = record.find((e) => e.type === "game_created");
  const committedAt = types.indexOf("seed_committed");
  const revealed = record.find((e) => e.type === "seed_revealed");
  if (!created || committedAt < 0) {
    problems.push("no game_created / seed_committed in the record");
    return;
  }
  if (!revealed) {
    problems.push("the dealer has not revealed its seed (game not over?)");
    return;
  }
  const firstDraw = types.indexOf("draw");
  if (!check("seed", "seed committed before the first draw", firstDraw < 0 || firstDraw > committedAt)) {
    problems.push("a draw happened before the seed commitment");
  }
  const seed = unhex(revealed.server_seed);
  const seedC = await seedCommitment(gameId, seed);
  if (!check("seed", "revealed seed matches the commitment", seedC === record[committedAt].commitment,
    `SHA-256 = ${seedC}`)) {
    problems.push("the revealed server seed does not match its commitment");
  }
  if (!check("seed", "rules version unchanged", revealed.rules_version === created.rules_version,
    revealed.rules_version)) {
    problems.push("rules version differs between creation and reveal");
  }

  // escrow rounds
  const opened = {};
  const seen = {};
  const closed = {};
  const joint = {};
  for (const e of record) {
    if (e.type === "round_opened") opened[e.round_id] = e;
    else if (e.type === "committed") {
      if (e.round_id in closed) problems.push(`commit after close in ${e.round_id}`);
      seen[`${e.round_id}/${e.slot}`] = e.commitment;
    } else if (e.type === "round_closed") closed[e.round_id] = e;
    else if (e.type === "round_revealed") {
      const rid = e.round_id;
      counts.rounds += 1;
      const defaults = {};
      for (const s of (opened[rid] || {}).slots || []) defaults[s.key] = s.default_commitment;
      const pairs = [];
      const choices = {};
      for (const o of e.openings) {
        const key = `${rid}/${o.slot}`;
        choices[o.slot] = o.choice;
        if (!(o.slot in defaults)) problems.push(`${key}: revealed a slot that was never opened`);
        if (o.defaulted) {
          const dc = await defaultCommitment(gameId, rid, o.slot, o.choice, o.default_salt || "");
          if (!check("default", `${key} default (fixed at open)`, dc === defaults[o.slot])) {
            problems.push(`${key}: defaulted slot did not get the default fixed at open`);
          }
          continue;
        }
        const c = await commitment(gameId, rid, o.slot, o.seat, o.choice, o.nonce);
        counts.commitments += 1;
        if (!check("commitment", `${key} (seat ${o.seat})`, c === o.commitment && c === seen[key], c)) {
          problems.push(`${key}: the revealed choice does not match its commitment`);
        }
        pairs.push([o.slot, c]);
      }
      if (rid in closed) {
        const root = await commitmentsRoot(pairs);
        if (!check("root", `${rid} commitments root`, root === closed[rid].root, root)) {
          problems.push(`${rid}: commitments root mismatch`);
        }
      }
      joint[rid] = choices;
    }
  }

  // the dealer's draws
  const clientSeeds = revealed.client_seeds || [];
  if (created.client_entropy) {
    const ent = joint.entropy;
    const expected = ent === undefined ? null
      : created.players.map((_, i) => (`s${i}` in ent ? (typeof ent[`s${i}`] === "string"
        ? ent[`s${i}`] : py(ent[`s${i}`])) : ""));
    if (!check("seed", "client seeds are the entropy round's", expected !== null
        && canonical(expected) === canonical(clientSeeds))) {
      problems.push("client seeds in the game key differ from the entropy reveal");
    }
  }
  const key = await gameKey(seed, gameId, revealed.rules_version, clientSeeds.map(unhex));
  const dealt = {};
  const requests = {};
  for (const d of revealed.draws) {
    const values = await draw(key, d.label, d.draw, d.n, d.count);
    counts.draws += 1;
    if (!check("draw", `${d.label} (${d.draw} ${d.n}${d.count > 1 ? " ×" + d.count : ""})`,
      same(values, d.values), py(values))) {
      problems.push(`draw ${d.label}: recomputed ${py(values)} != dealt ${py(d.values)}`);
    }
    if (d.label in dealt) problems.push(`draw ${d.label}: the dealer dealt this label twice`);
    dealt[d.label] = d.values;
    requests[d.label] = [d.draw, d.n, d.count];
  }
  // labels are bound by their order too (as in shared/fairness/verify.py)
  const dealerOrder = revealed.draws.map((d) => d.label);
  const recordOrder = record.filter((e) => e.type === "draw").map((e) => e.label);
  if (!check("draw", "the record's draws are the dealer's, in order",
    same(dealerOrder.slice(0, recordOrder.length), recordOrder))) {
    problems.push("the record's draws are not the dealer's draws in the dealer's order");
  }
  for (const e of record) {
    if (e.type !== "draw") continue;
    if (!(e.label in dealt)) {
      problems.push(`draw ${e.label} is missing from the dealer's reveal`);
      continue;
    }
    if (!same([e.draw, e.n, e.count], requests[e.label])) {
      problems.push(`draw ${e.label}: the public request differs from the dealer's`);
    }
    if ("values" in e && !same(e.values, dealt[e.label])) {
      problems.push(`draw ${e.label}: public values differ from the dealer's`);
    }
  }

  // what the adjudicator applied (the log is public once the game is over): the record's
  // draws, in the same order
  if (doc.log) {
    const appliedOrder = doc.log.map((x) => x.move || {}).filter((m) => m.kind === "chance_outcome")
      .map((m) => m.label);
    if (!check("applied", "the applied outcomes are the record's draws, in order",
      same(appliedOrder, recordOrder))) {
      problems.push("the applied outcomes are not the record's draws in order");
    }
  }
  for (const entry of doc.log || []) {
    const move = entry.move || {};
    if (move.kind === "chance_outcome") {
      counts.applied += 1;
      if (!check("applied", `seq ${entry.seq}: outcome ${move.label}`, same(dealt[move.label], move.values))) {
        problems.push(`applied outcome for ${move.label} is not the dealer's`);
      }
    } else if (move.kind === "joint") {
      counts.applied += 1;
      if (!check("applied", `seq ${entry.seq}: choices ${move.round_id}`, same(joint[move.round_id], move.choices))) {
        problems.push(`applied choices for ${move.round_id} differ from reveal`);
      }
    }
  }
}
