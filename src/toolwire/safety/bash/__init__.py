"""Reading a shell command line the way bash would, for the command guard.

`syntax` parses with tree-sitter's bash grammar; `words` expands a word statically (quote
removal, ``$'..'``, brace expansion, ``~`` and ``$HOME``, unknown parts marked); `commands`
resolves one simple command (wrappers looked through); `flows` says what a pipeline stage feeds
the next; `nested` finds the code a command runs (``sh -c``, ``eval``, inline interpreter code);
`code_scan` reads other languages' inline code; `walk` visits every command of a line.
"""
