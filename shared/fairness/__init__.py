"""Fairness primitives, stdlib only: escrow commitments, the dealer's labelled draws, and the
verifier. Clients, the SDK and the verifier import these without any third-party package."""
