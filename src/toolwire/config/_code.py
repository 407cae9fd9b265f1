"""The ``[code]`` table of ``toolwire.toml``: how long the code tools' checkers may run.

```toml
[code]
lint_timeout_s = 240        # one linter run (ruff, eslint, cargo clippy, go vet)
typecheck_timeout_s = 300   # one type checker run (mypy or pyright, tsc, cargo check, go build)
tests_timeout_s = 600       # one test run (pytest, vitest or jest, cargo test, go test)
```

Each is a number of seconds, above 0 and at most a day; a checker still running then is killed
with every process it started and the call answers ``timeout``. The tool's own timeout (the
registry's limit on the whole call) follows: twice the checker's (three times for ``lint``,
which may run the linter, its fixer and the linter again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolwire.config.files import Located, check_keys, kind_of
from toolwire.errors import ConfigurationError

__all__ = ["CODE_KEYS", "MAX_TIMEOUT_S", "CodeSettings", "code_table"]

MAX_TIMEOUT_S = 86_400.0
"""The longest checker timeout accepted (a day)."""
CODE_KEYS = ("lint_timeout_s", "typecheck_timeout_s", "tests_timeout_s")
"""The keys of ``[code]``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class CodeSettings:
    """The code tools' checker timeouts, in seconds.

    Attributes:
        lint_timeout_s: One linter run.
        typecheck_timeout_s: One type checker run.
        tests_timeout_s: One test run.
    """

    lint_timeout_s: float = 240.0
    typecheck_timeout_s: float = 300.0
    tests_timeout_s: float = 600.0

    def __post_init__(self) -> None:
        """Refuse a timeout that is not seconds in (0, `MAX_TIMEOUT_S`].

        Raises:
            ConfigurationError: naming the field and the range.
        """
        for key in CODE_KEYS:
            value = getattr(self, key)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 < value <= MAX_TIMEOUT_S
            ):
                raise ConfigurationError(
                    f"CodeSettings({key}={value!r}): give seconds above 0, "
                    f"at most {MAX_TIMEOUT_S:g}"
                )
            object.__setattr__(self, key, float(value))


def code_table(table: Any, at: Located) -> CodeSettings:
    """``[code]`` as parsed → `CodeSettings`; a key it leaves out keeps its default.

    Raises:
        ConfigurationError: not a table, an unknown key, or a value that is not seconds in
            (0, `MAX_TIMEOUT_S`], naming the file and line.
    """
    if not isinstance(table, dict):
        raise at.error(("code",), f"expected a table ([code]), got {kind_of(table)}")
    check_keys(table, set(CODE_KEYS), ("code",), at)
    values: dict[str, float] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise at.error(("code", key), f"expected seconds (a number), got {kind_of(value)}")
        if not 0 < value <= MAX_TIMEOUT_S:
            raise at.error(
                ("code", key), f"expected seconds above 0, at most {MAX_TIMEOUT_S:g}; got {value!r}"
            )
        values[key] = float(value)
    return CodeSettings(**values)
