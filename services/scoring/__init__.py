"""scoring: results with tie-breaks, ratings, leaderboards, history."""
