"""Secrets: declared-ref checks, env and vault resolvers, and values that never leak."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.kinds.secrets._resolvers import (
    DEFAULT_ENV_SECRETS,
    ChainSecretsResolver,
    DeclaredSecrets,
    EnvSecretsResolver,
    SecretsResolver,
    VaultSecretsResolver,
    is_ref_permitted,
    validate_ref,
)
from toolwire.capabilities.seams import ScopedSecrets
from toolwire.errors import SecretNotDeclaredError

pytestmark = pytest.mark.anyio

VALUE = "sk-live-0123456789abcdef"
DENIAL = "SECRET_NOT_DECLARED: requested secret is not permitted for this tool"


def env_resolver(**values: str) -> EnvSecretsResolver:
    return EnvSecretsResolver(environ=values)


# ---------------------------------------------------------------- declared refs


@pytest.mark.parametrize(
    ("ref", "declared", "permitted"),
    [
        ("providers/exa/apiKey", ["providers/exa/apiKey"], True),
        ("providers/exa/other", ["providers/exa/apiKey"], False),
        ("providers/exa/apiKey", ["providers/exa/*"], True),
        ("providers/exa/deep/key", ["providers/exa/*"], True),
        ("providers/exa", ["providers/exa/*"], False),
        ("providers/exampleX/k", ["providers/exa/*"], False),
        ("providers/exa/../../channels/slack/token", ["providers/exa/*"], False),
        ("providers/exa/./apiKey", ["providers/exa/*"], False),
        ("providers/exa//apiKey", ["providers/exa/*"], False),
        ("providers/exa/", ["providers/exa/*"], False),
        ("", ["providers/exa/*"], False),
        ("anything", ["*"], False),
    ],
)
def test_ref_permission_table(ref: str, declared: list[str], permitted: bool) -> None:
    assert is_ref_permitted(ref, declared) is permitted


SEGMENT = st.sampled_from(["providers", "exa", "exampleX", "apiKey", "..", ".", "", "x"])


@given(st.lists(SEGMENT, min_size=1, max_size=6))
def test_a_prefix_grant_matches_exactly_the_clean_refs_below_it(segments: list[str]) -> None:
    ref = "/".join(segments)
    clean = all(s not in ("", ".", "..") for s in segments)
    expected = clean and len(segments) > 2 and segments[:2] == ["providers", "exa"]
    assert is_ref_permitted(ref, ["providers/exa/*"]) is expected


@pytest.mark.parametrize("ref", ["", "/abs", "a\\b", "a\0b", "a//b", "a/./b", "a/../b", "a/"])
def test_malformed_refs_are_rejected_without_echoing_them(ref: str) -> None:
    with pytest.raises(ValueError) as exc:
        validate_ref(ref)
    assert ref == "" or ref not in str(exc.value)


async def test_declared_secrets_satisfy_the_protocol() -> None:
    assert isinstance(DeclaredSecrets([], env_resolver()), ScopedSecrets)


async def test_a_declared_ref_resolves() -> None:
    secrets = DeclaredSecrets(["providers/exa/apiKey"], env_resolver(EXA_API_KEY=VALUE))
    assert await secrets.get("providers/exa/apiKey") == VALUE


async def test_a_prefix_grant_resolves_refs_below_it() -> None:
    secrets = DeclaredSecrets(["providers/*"], env_resolver(TAVILY_API_KEY=VALUE))
    assert await secrets.get("providers/tavily/apiKey") == VALUE


async def test_an_undeclared_ref_is_refused_with_a_message_that_does_not_echo_it() -> None:
    secrets = DeclaredSecrets(["providers/exa/apiKey"], env_resolver(OPENAI_API_KEY=VALUE))
    with pytest.raises(SecretNotDeclaredError) as exc:
        await secrets.get("providers/openai/apiKey")
    assert str(exc.value) == DENIAL
    assert "openai" not in str(exc.value)


async def test_a_sibling_namespace_is_not_leaked() -> None:
    resolver = EnvSecretsResolver({"providers/exampleX/k": "EXAMPLE_X"}, {"EXAMPLE_X": VALUE})
    secrets = DeclaredSecrets(["providers/exa/*"], resolver)
    with pytest.raises(SecretNotDeclaredError):
        await secrets.get("providers/exampleX/k")


async def test_a_traversal_ref_is_refused() -> None:
    resolver = EnvSecretsResolver({"channels/slack/token": "SLACK"}, {"SLACK": VALUE})
    secrets = DeclaredSecrets(["providers/exa/*"], resolver)
    with pytest.raises(SecretNotDeclaredError) as exc:
        await secrets.get("providers/exa/../../channels/slack/token")
    assert "channels" not in str(exc.value)


async def test_a_declared_but_unknown_ref_raises_key_error() -> None:
    secrets = DeclaredSecrets(["providers/exa/apiKey"], env_resolver())
    with pytest.raises(KeyError, match="not configured"):
        await secrets.get("providers/exa/apiKey")


async def test_a_declared_ref_the_vault_cannot_store_is_unknown(tmp_path: Path) -> None:
    secrets = DeclaredSecrets(["a/../b"], VaultSecretsResolver(tmp_path / "vault"))
    with pytest.raises(KeyError):
        await secrets.get("a/../b")


def test_declared_secrets_refuse_a_single_string() -> None:
    with pytest.raises(TypeError):
        DeclaredSecrets("providers/*", env_resolver())


# ---------------------------------------------------------------- env resolver


async def test_env_resolver_uses_the_default_table() -> None:
    resolver = env_resolver(OPENAI_API_KEY="o", ANTHROPIC_API_KEY="a", BRAVE_API_KEY="b")
    assert isinstance(resolver, SecretsResolver)
    assert await resolver.get("providers/openai/apiKey") == "o"
    assert await resolver.get("providers/anthropic/apiKey") == "a"
    assert await resolver.get("providers/brave/apiKey") == "b"
    assert resolver.mapping == DEFAULT_ENV_SECRETS


async def test_env_resolver_returns_none_for_unknown_refs_and_empty_variables() -> None:
    resolver = env_resolver(EXA_API_KEY="")
    assert await resolver.get("providers/exa/apiKey") is None
    assert await resolver.get("not/in/table") is None


async def test_a_custom_table_replaces_the_default() -> None:
    resolver = EnvSecretsResolver({"db/password": "DB_PASSWORD"}, {"DB_PASSWORD": "p"})
    assert await resolver.get("db/password") == "p"
    assert await resolver.get("providers/openai/apiKey") is None


async def test_env_resolver_reads_the_environment_at_call_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resolver = EnvSecretsResolver()
    monkeypatch.setenv("EXA_API_KEY", "later")
    assert await resolver.get("providers/exa/apiKey") == "later"


async def test_the_chain_returns_the_first_known_value() -> None:
    first = EnvSecretsResolver({"a": "A"}, {"A": "from-first"})
    second = EnvSecretsResolver({"a": "A", "b": "B"}, {"A": "from-second", "B": "b"})
    chain = ChainSecretsResolver(first, second)
    assert await chain.get("a") == "from-first"
    assert await chain.get("b") == "b"
    assert await chain.get("c") is None


# ---------------------------------------------------------------- vault


async def test_the_vault_round_trips_a_value(tmp_path: Path) -> None:
    vault = VaultSecretsResolver(tmp_path / "vault")
    await vault.set("providers/exa/apiKey", VALUE)
    assert await vault.get("providers/exa/apiKey") == VALUE
    assert await vault.get("providers/exa/other") is None


async def test_the_vault_stores_a_value_plus_newline_and_strips_it(tmp_path: Path) -> None:
    vault = VaultSecretsResolver(tmp_path / "vault")
    await vault.set("k", "multi\nline")
    assert (tmp_path / "vault" / "k").read_text() == "multi\nline\n"
    assert await vault.get("k") == "multi\nline"


async def test_vault_files_are_0600_and_the_directory_0700(tmp_path: Path) -> None:
    directory = tmp_path / "vault"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    vault = VaultSecretsResolver(directory)
    await vault.set("providers/exa/apiKey", VALUE)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    file = directory / "providers%2Fexa%2FapiKey"
    assert stat.S_IMODE(file.stat().st_mode) == 0o600


async def test_a_vault_set_replaces_the_file_atomically(tmp_path: Path) -> None:
    vault = VaultSecretsResolver(tmp_path / "vault")
    await vault.set("k", "old")
    file = tmp_path / "vault" / "k"
    with file.open() as before:
        inode = os.fstat(before.fileno()).st_ino
        await vault.set("k", "new")
        assert before.read() == "old\n"
    assert file.stat().st_ino != inode
    assert os.listdir(tmp_path / "vault") == ["k"]
    assert await vault.get("k") == "new"


async def test_the_vault_deletes_and_ignores_missing_refs(tmp_path: Path) -> None:
    vault = VaultSecretsResolver(tmp_path / "vault")
    await vault.set("a/b", "1")
    await vault.set("c", "2")
    assert await vault.refs() == ["a/b", "c"]
    await vault.delete("a/b")
    await vault.delete("never-set")
    assert await vault.refs() == ["c"]
    assert await vault.get("a/b") is None


async def test_an_empty_vault_has_no_refs(tmp_path: Path) -> None:
    assert await VaultSecretsResolver(tmp_path / "none").refs() == []


@pytest.mark.parametrize("ref", ["", "/etc/passwd", "../escape", "a/../../b", "a\\b", "a//b"])
async def test_the_vault_refuses_malformed_refs(tmp_path: Path, ref: str) -> None:
    vault = VaultSecretsResolver(tmp_path / "vault")
    with pytest.raises(ValueError):
        await vault.set(ref, VALUE)
    with pytest.raises(ValueError):
        await vault.get(ref)
    assert not (tmp_path / "escape").exists()


async def test_the_vault_does_not_follow_a_planted_link(tmp_path: Path) -> None:
    directory = tmp_path / "vault"
    directory.mkdir()
    (tmp_path / "elsewhere").write_text("planted\n")
    (directory / "k").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        await VaultSecretsResolver(directory).get("k")


# ---------------------------------------------------------------- values never leak


async def test_no_repr_shows_a_value(tmp_path: Path) -> None:
    env = env_resolver(EXA_API_KEY=VALUE)
    vault = VaultSecretsResolver(tmp_path / "vault")
    await vault.set("providers/exa/apiKey", VALUE)
    chain = ChainSecretsResolver(env, vault)
    declared = DeclaredSecrets(["providers/exa/apiKey"], chain)
    assert await declared.get("providers/exa/apiKey") == VALUE
    for holder in (env, vault, chain, declared):
        assert VALUE not in repr(holder)
        assert VALUE not in str(holder)


async def test_errors_never_show_a_value(tmp_path: Path) -> None:
    declared = DeclaredSecrets(["providers/exa/apiKey"], env_resolver(OPENAI_API_KEY=VALUE))
    for ref in ("providers/openai/apiKey", "providers/exa/apiKey"):
        with pytest.raises((SecretNotDeclaredError, KeyError)) as exc:
            await declared.get(ref)
        assert VALUE not in str(exc.value)
