// boardgame.io's own server (koa + socket.io) serving the bench's duel.
// Usage: node server.js PORT [POSTGRES_URL]. Prints "READY <port>" once listening.
// With POSTGRES_URL the matches are stored by bgio-postgres 1.0.16 (Sequelize, its defaults
// but for query logging), the durable storage boardgame.io deployments use; without it, in
// memory (boardgame.io's default).
// Credentials: one per player name (an HMAC of it), as our players hold one token for all
// their games, so a client moves on to its next game with one sync on the same socket.
'use strict';
const crypto = require('crypto');
const { Origins, Server } = require('boardgame.io/server');
const { Duel } = require('./game');

const SECRET = crypto.randomBytes(32);
const port = Number(process.argv[2] || 0);
const pgUrl = process.argv[3];

const server = Server({
  games: [Duel],
  origins: [Origins.LOCALHOST],
  ...(pgUrl ? { db: new (require('bgio-postgres').PostgresStore)(pgUrl, { logging: false }) }
    : {}),
  generateCredentials: (ctx) =>
    crypto.createHmac('sha256', SECRET).update(String(ctx.request.body.playerName)).digest('hex'),
});

server.run(port, () => process.stdout.write(`READY ${port}\n`));
