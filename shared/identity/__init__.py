"""Player identity: display handles (normalization, refusal, confusable skeletons)."""
