"""Safety: untrusted-output wrapping, injection patterns, secret redaction, the command guard
and the sensitive-path manifest (the deny floor every file and process seam applies)."""
