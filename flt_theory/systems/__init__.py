"""Systems of CLAIMS.md: each module wires symbolic laws to a numeric experiment and a check."""
