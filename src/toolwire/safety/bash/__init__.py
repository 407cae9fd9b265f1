"""Reading a shell command line the way bash would, for the command guard.

`syntax` parses with tree-sitter's bash grammar; `words` expands a word statically (quote
removal, ``$'..'``, brace expansion, ``~`` and ``$HOME``, known variables, unknown parts
marked); `commands` resolves one simple command (wrappers looked through); `flows` says what a
pipeline stage feeds the next; `nested` finds the code a command runs besides itself
(``sh -c``, ``eval``, inline interpreter code, ``find -exec``, ``xargs``); `code_scan` reads
other languages' inline code; `line_files` joins the files a line downloads or writes to the
ones it runs; `fallback` reads what did not parse; `walk` visits every command of a line.

Also here: ``code_runs.py`` and ``code_values.py`` (code a command runs, judged as code),
``config_commands.py`` (commands carried by configuration), ``line_state.py`` (variables and
folder left for later commands), ``model.py`` (what the walker hands the rules) and ``shapes.py``
(what a syntax tree's shape says).
"""
