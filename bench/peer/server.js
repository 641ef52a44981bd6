// boardgame.io's own server (koa + socket.io, in-memory storage: its defaults) serving the
// bench's duel. Usage: node server.js PORT. Prints "READY <port>" once listening.
// Credentials: one per player name (an HMAC of it), as our players hold one token for all
// their games, so a client moves on to its next game with one sync on the same socket.
'use strict';
const crypto = require('crypto');
const { Origins, Server } = require('boardgame.io/server');
const { Duel } = require('./game');

const SECRET = crypto.randomBytes(32);
const port = Number(process.argv[2] || 0);

const server = Server({
  games: [Duel],
  origins: [Origins.LOCALHOST],
  generateCredentials: (ctx) =>
    crypto.createHmac('sha256', SECRET).update(String(ctx.request.body.playerName)).digest('hex'),
});

server.run(port, () => process.stdout.write(`READY ${port}\n`));
