"""Every ref has an environment variable (``TOOLWIRE_SECRET_<REF>``), ``[secrets.env]`` names
others, and a declared ref with no value says exactly how to give it one with the resolvers at
hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.capabilities.defaults import create_backends
from toolwire.capabilities.kinds.secrets._env import (
    EnvSecretsResolver,
    check_env_name,
    secret_env_name,
)
from toolwire.capabilities.kinds.secrets._resolvers import (
    ChainSecretsResolver,
    DeclaredSecrets,
    VaultSecretsResolver,
)
from toolwire.config import load_config
from toolwire.errors import ConfigurationError, SecretNotConfiguredError

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("ref", "name"),
    [
        ("github_token", "TOOLWIRE_SECRET_GITHUB_TOKEN"),
        ("providers/exa/apiKey", "TOOLWIRE_SECRET_PROVIDERS_EXA_APIKEY"),
        ("acme.io/api-key", "TOOLWIRE_SECRET_ACME_IO_API_KEY"),
    ],
)
def test_every_ref_has_a_variable_named_by_one_rule(ref: str, name: str) -> None:
    assert secret_env_name(ref) == name


async def test_a_custom_ref_resolves_from_its_own_variable() -> None:
    resolver = EnvSecretsResolver(environ={"TOOLWIRE_SECRET_GITHUB_TOKEN": "t"})
    assert await resolver.get("github_token") == "t"


async def test_the_named_variable_is_read_before_the_refs_own() -> None:
    environ = {"GITHUB_TOKEN": "named", "TOOLWIRE_SECRET_PROVIDERS_GITHUB_TOKEN": "own"}
    resolver = EnvSecretsResolver(environ=environ)
    assert resolver.variables("providers/github/token") == (
        "GITHUB_TOKEN",
        "TOOLWIRE_SECRET_PROVIDERS_GITHUB_TOKEN",
    )
    assert await resolver.get("providers/github/token") == "named"
    del environ["GITHUB_TOKEN"]
    assert await resolver.get("providers/github/token") == "own"


async def test_own_variables_can_be_turned_off() -> None:
    resolver = EnvSecretsResolver({}, {"TOOLWIRE_SECRET_GITHUB_TOKEN": "t"}, own_variables=False)
    assert await resolver.get("github_token") is None
    assert resolver.how_to_set("github_token") == []


@pytest.mark.parametrize("name", ["", "1ABC", "A-B", "A B", "A=B", 7])
def test_a_variable_name_must_be_one(name: object) -> None:
    with pytest.raises(ValueError, match="not an environment variable name"):
        check_env_name(name)


async def test_the_default_backends_name_the_cli_and_the_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("TOOLWIRE_SECRET_PROVIDERS_GITHUB_TOKEN", raising=False)
    backends = create_backends(working_dir=str(tmp_path), kv_url=None, archive_url=None)
    assert backends.secrets_resolver is not None
    secrets = DeclaredSecrets(["providers/github/token"], backends.secrets_resolver)
    with pytest.raises(SecretNotConfiguredError) as raised:
        await secrets.get("providers/github/token")
    assert isinstance(raised.value, KeyError)
    assert str(raised.value) == (
        "secret providers/github/token is not configured: run `toolwire secret set "
        "providers/github/token` or set the environment variable GITHUB_TOKEN or "
        "TOOLWIRE_SECRET_PROVIDERS_GITHUB_TOKEN"
    )
    await backends.aclose()


async def test_a_resolver_without_the_default_vault_does_not_name_the_cli(
    tmp_path: Path,
) -> None:
    chain = ChainSecretsResolver(VaultSecretsResolver(tmp_path / "vault"), EnvSecretsResolver({}))
    with pytest.raises(KeyError) as raised:
        await DeclaredSecrets(["acme/key"], chain).get("acme/key")
    said = str(raised.value)
    assert "toolwire secret set" not in said
    assert "VaultSecretsResolver.set" in said
    assert "TOOLWIRE_SECRET_ACME_KEY" in said


async def test_a_resolver_that_cannot_say_gets_a_generic_hint() -> None:
    class Silent:
        async def get(self, ref: str) -> str | None:
            return None

    with pytest.raises(KeyError, match="give the registry a resolver that has it"):
        await DeclaredSecrets(["a"], Silent()).get("a")


def test_secrets_env_in_the_config_file(tmp_path: Path) -> None:
    file = tmp_path / "toolwire.toml"
    file.write_text('[secrets.env]\ngithub_token = "GH_PAT"\n"acme/key" = "ACME_KEY"\n')
    config = load_config(file, env={})
    assert config.secrets_env == {"github_token": "GH_PAT", "acme/key": "ACME_KEY"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[secrets]\nvault = 1\n", r"toolwire.toml:2: secrets.vault: unknown key"),
        ('[secrets.env]\ngithub_token = "GH-PAT"\n', r":2: secrets.env.github_token: 'GH-PAT'"),
        ("[secrets.env]\ngithub_token = 3\n", r"secrets.env.github_token: 3 is not"),
        ('[secrets.env]\n"../x" = "X"\n', r"secrets.env.../x: a secret ref may not"),
        ('secrets = "x"\n', r"secrets: expected a table"),
    ],
)
def test_a_bad_secrets_table_names_the_key(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "toolwire.toml"
    file.write_text(text)
    with pytest.raises(ConfigurationError, match=message):
        load_config(file, env={})
