"""The bus contract: both implementations, one suite."""
