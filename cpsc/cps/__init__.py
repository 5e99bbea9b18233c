"""The functional CPS IR: functions, continuations (basic blocks) with parameters (phis)."""
