"""Safety: untrusted-output wrapping, injection patterns, secret redaction, the command guard
and the sensitive-path manifest (the deny floor every file and process seam applies).

Rooms:

- ``untrusted.py`` (the ``<untrusted ...>`` wrapper), ``template_tokens.py`` (chat-template
  tokens), ``injection.py`` (prompt-injection patterns), ``redaction.py`` (secret redaction);
- ``sensitive_paths.py`` (the deny floor), ``protected_paths.py`` (what the host runs or reads);
- ``command_guard.py`` (the command guard) judging by ``command_rules.py``,
  ``command_device_rules.py``, ``command_paths.py`` and ``command_globs.py``;
  ``command_segments.py`` (every simple command of a line); ``bash/`` (reading the line);
- ``linear_regex.py`` (linear-time regexes for untrusted text), ``linear_syntax.py`` (→ RE2).
"""
