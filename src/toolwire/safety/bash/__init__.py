"""Reading a shell command line the way bash would, for the command guard.

`syntax` parses with tree-sitter's bash grammar; `words` expands a word statically (quote
removal, ``$'..'``, brace expansion, ``~`` and ``$HOME``, known variables, unknown parts
marked); `commands` resolves one simple command (wrappers looked through); `flows` says what a
pipeline stage feeds the next; `nested` finds the code a command runs besides itself
(``sh -c``, ``eval``, inline interpreter code, ``find -exec``, ``xargs``); `code_scan` reads
other languages' inline code; `line_files` joins the files a line downloads or writes to the
ones it runs; `fallback` reads what did not parse; `walk` visits every command of a line.
"""
