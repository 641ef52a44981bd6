// Numbers for people: durations in seconds, minutes, hours or days ("4 days 23 h", never
// "431998 s"), shared by every screen that shows a clock.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** A duration in milliseconds as the two largest units that matter: "42 s", "7 min",
 * "1 h 5 min", "4 days 23 h". Rounded down, so a clock never shows more time than is left. */
export function duration(ms) {
  const t = Math.max(0, Math.floor(Number(ms) || 0));
  if (t < MIN) return `${Math.floor(t / 1000)} s`;
  if (t < HOUR) return `${Math.floor(t / MIN)} min`;
  if (t < DAY) {
    const m = Math.floor((t % HOUR) / MIN);
    return `${Math.floor(t / HOUR)} h` + (m ? ` ${m} min` : "");
  }
  const hours = Math.floor((t % DAY) / HOUR);
  return plural(Math.floor(t / DAY), "day", "days") + (hours ? ` ${hours} h` : "");
}

/** The time left until ``deadlineMs`` (epoch ms) at ``nowMs``: "7 min left". */
export function timeLeft(deadlineMs, nowMs = Date.now()) {
  return `${duration(deadlineMs - nowMs)} left`;
}
