"""Safety: untrusted-output wrapping, injection patterns, secret redaction, the command guard
and the sensitive-path manifest (the deny floor every file and process seam applies).

Rooms:

- ``_untrusted.py`` (the ``<untrusted ...>`` wrapper), ``template_tokens.py`` (chat-template
  tokens), ``injection.py`` (prompt-injection patterns), ``_redaction.py`` (secret redaction);
- ``sensitive_paths.py`` (the deny floor), ``protected_paths.py`` (what the host runs or reads);
- ``command_guard.py`` (the command guard) judging by ``_command_rules.py``,
  ``_command_device_rules.py``, ``_command_paths.py`` and ``_command_globs.py``;
  ``_command_segments.py`` (every simple command of a line); ``bash/`` (reading the line);
- ``linear_regex.py`` (linear-time regexes for untrusted text), ``_linear_syntax.py`` (→ RE2).
"""
