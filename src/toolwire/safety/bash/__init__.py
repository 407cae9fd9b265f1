"""Reading a shell command line the way bash would, for the command guard.

`_syntax` parses with tree-sitter's bash grammar; `_words` expands a word statically (quote
removal, ``$'..'``, brace expansion, ``~`` and ``$HOME``, known variables, unknown parts
marked); `_commands` resolves one simple command (wrappers looked through); `_flows` says what a
pipeline stage feeds the next; `_nested` finds the code a command runs besides itself
(``sh -c``, ``eval``, inline interpreter code, ``find -exec``, ``xargs``); `_code_scan` reads
other languages' inline code; `_line_files` joins the files a line downloads or writes to the
ones it runs; `_fallback` reads what did not parse; `_walk` visits every command of a line.

Also here: ``_code_runs.py`` and ``_code_values.py`` (code a command runs, judged as code),
``_config_commands.py`` (commands carried by configuration), ``_line_state.py`` (variables and
folder left for later commands), ``_model.py`` (what the walker hands the rules) and ``_shapes.py``
(what a syntax tree's shape says).
"""
