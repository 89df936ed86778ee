"""Read-deny rules: built-ins, the user's file, the workspace's, matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.trust.policy import (
    WORKSPACE_POLICY_NAME,
    Policy,
    PolicyError,
    Rule,
    builtin_rules,
    load_policy,
)

HOME = "/home/ada"


@pytest.fixture
def policy() -> Policy:
    return Policy(builtin_rules(), home=HOME, fold_case=False)


@pytest.mark.parametrize(
    "path",
    [
        "/projects/ws/.env",
        "/projects/ws/config/.env.local",
        "/projects/ws/prod.env",
        "/projects/ws/keys/id_rsa",
        "/projects/ws/keys/id_ed25519.pub",
        "/projects/ws/tls/server.pem",
        "/projects/ws/tls/server.key",
        "/projects/ws/.netrc",
        "/projects/ws/.git-credentials",
        f"{HOME}/.ssh/config",
        f"{HOME}/.ssh/known_hosts",
        f"{HOME}/.aws/credentials",
        f"{HOME}/.gnupg/pubring.kbx",
        f"{HOME}/.config/gcloud/application_default_credentials.json",
        f"{HOME}/.mozilla/firefox/abc.default/cookies.sqlite",
        f"{HOME}/.config/google-chrome/Default/Login Data",
        f"{HOME}/.kube/config",
        f"{HOME}/.docker/config.json",
    ],
)
def test_builtin_rules_deny_secrets(policy, path):
    assert policy.denying_rule(path) is not None


@pytest.mark.parametrize(
    "path",
    [
        "/projects/ws/report.html",
        "/projects/ws/environment.md",
        "/projects/ws/keys.txt",
        "/projects/ws/notes/env.txt",
        f"{HOME}/.sshrc",
        f"{HOME}/projects/ssh/notes.md",
        "/other/.ssh/config",
    ],
)
def test_ordinary_files_are_allowed(policy, path):
    assert policy.denying_rule(path) is None


def test_folder_rule_covers_the_folder_itself(policy):
    assert policy.denying_rule(f"{HOME}/.ssh") is not None


def test_case_and_unicode_are_normalised_when_the_fs_ignores_case():
    folded = Policy(builtin_rules(), home=HOME, fold_case=True)
    assert folded.denying_rule("/projects/ws/.ENV") is not None
    assert folded.denying_rule(f"{HOME}/.SSH/id") is not None
    exact = Policy(builtin_rules(), home=HOME, fold_case=False)
    # Folder paths keep their case where the file system does: ~/.SSH is not
    # ssh's folder on Linux. Secret names are matched in any case (below).
    assert exact.denying_rule(f"{HOME}/.SSH/id") is None
    # "é" composed and decomposed are one name after NFC normalisation.
    rule = Policy([Rule("caf\u00e9.txt", "t")], home=HOME, fold_case=False)
    assert rule.denying_rule("/w/cafe\u0301.txt") is not None


@pytest.mark.parametrize(
    "path",
    [
        "/projects/ws/tls/SERVER.KEY",
        "/projects/ws/tls/cert.PEM",
        "/projects/ws/.ENV",
        "/projects/ws/Prod.Env",
        "/projects/ws/keys/ID_RSA",
        "/projects/ws/.NetRC",
        "/projects/ws/CREDENTIALS.JSON",
    ],
)
def test_secret_names_are_denied_in_any_case_on_every_platform(path):
    exact = Policy(builtin_rules(), home=HOME, fold_case=False)
    assert exact.denying_rule(path) is not None


def test_globstar_and_star_semantics():
    policy = Policy(
        [Rule("/data/**/private/", "t"), Rule("/logs/*.log", "t")],
        home=HOME,
        fold_case=False,
    )
    assert policy.denying_rule("/data/a/b/private/x.txt") is not None
    assert policy.denying_rule("/data/private/x.txt") is not None
    assert policy.denying_rule("/logs/app.log") is not None
    assert policy.denying_rule("/logs/old/app.log") is None


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_user_file_adds_and_removes_rules(tmp_path):
    user = write(
        tmp_path / "policy.toml",
        '[deny]\nadd = ["*.sqlite"]\nremove = ["*.pem"]\n',
    )
    policy = load_policy(user_file=user, home=HOME)
    assert policy.denying_rule("/w/app.sqlite").origin.startswith("user policy")
    assert policy.denying_rule("/w/server.pem") is None
    assert policy.denying_rule("/w/.env") is not None


def test_workspace_file_can_add_but_never_remove(tmp_path):
    workspace = tmp_path / "ws"
    write(
        workspace / WORKSPACE_POLICY_NAME,
        '[deny]\nadd = ["drafts/"]\nremove = [".env", "*.pem"]\n',
    )
    policy = load_policy(
        workspace=workspace, user_file=tmp_path / "none.toml", home=HOME
    )
    assert policy.denying_rule(str(workspace / "drafts" / "a.md")) is not None
    assert policy.denying_rule(str(workspace / ".env")) is not None
    assert policy.denying_rule(str(workspace / "server.pem")) is not None


def test_changes_apply_on_next_load_without_restart(tmp_path):
    user = tmp_path / "policy.toml"
    assert load_policy(user_file=user, home=HOME).denying_rule("/w/a.csv") is None
    write(user, '[deny]\nadd = ["*.csv"]\n')
    assert load_policy(user_file=user, home=HOME).denying_rule("/w/a.csv") is not None


@pytest.mark.parametrize(
    "text",
    ["[deny\n", '[deny]\nadd = "x"\n', "deny = 3\n", "[deny]\nadd = [1]\n"],
)
def test_broken_policy_file_is_an_error_not_an_open_door(tmp_path, text):
    user = write(tmp_path / "policy.toml", text)
    with pytest.raises(PolicyError):
        load_policy(user_file=user, home=HOME)


# -- a workspace's policy file read from another host -------------------------------


def test_a_remote_workspace_policy_adds_rules_with_its_coordinate(tmp_path: Path):
    label = "ssh://me@devbox:22/srv/w/.deliverables-policy.toml"
    policy = load_policy(
        user_file=tmp_path / "none.toml",
        home="/home/me",
        workspace_policy=(label, b'[deny]\nadd = ["*.secret"]\nremove = [".env"]\n'),
    )
    rule = policy.denying_rule("/srv/w/plan.secret")
    assert rule is not None and label in rule.origin
    # a workspace may only add: its "remove" is not read
    assert policy.denying_rule("/srv/w/.env") is not None
    # the home given is the "~" of the rules
    assert policy.denying_rule("/home/me/.ssh/config") is not None


def test_a_remote_workspace_without_a_policy_file_adds_nothing(tmp_path: Path):
    base = load_policy(user_file=tmp_path / "none.toml", home="/home/me")
    policy = load_policy(
        user_file=tmp_path / "none.toml",
        home="/home/me",
        workspace_policy=("ssh://h/w/.deliverables-policy.toml", None),
    )
    assert policy.rules == base.rules


@pytest.mark.parametrize(
    "data", [b"[deny\n", b'[deny]\nadd = "x"\n', b"#" * (300 * 1024)]
)
def test_a_broken_remote_workspace_policy_denies_everything(
    tmp_path: Path, data: bytes
):
    from app.core.trust.policy import current_policy

    policy = current_policy(
        user_file=tmp_path / "none.toml",
        home="/home/me",
        workspace_policy=("ssh://h/w/.deliverables-policy.toml", data),
    )
    assert policy.problem is not None
    assert policy.denying_rule("/srv/w/anything.txt") is not None


@pytest.mark.parametrize("fold_case", [False, True])
def test_a_folders_checker_answers_exactly_as_the_path_check(fold_case: bool) -> None:
    import itertools
    import random

    rules = [
        *builtin_rules(),
        Rule("/srv/data/", "user"),
        Rule("/srv/data/exact.txt", "user"),
        Rule("/srv/reports/final.pdf", "user"),
        Rule("**/build/**", "user"),
        Rule("*.tmp", "user"),
        Rule("~/notes/private*", "user"),
        Rule("/srv/**/cache/*.json", "user"),
        Rule("secret-??.txt", "user"),
        Rule("Caf\u00e9/", "user"),
        Rule("/srv/d?ta/*.csv", "user"),
        Rule("/home/me/.config/deliverables/settings.ini*", "user"),
        Rule("/srv/a/b**/x.tmp", "user"),
    ]
    policy = Policy(rules, home="/home/me", fold_case=fold_case)
    folders = [
        "/",
        "/srv",
        "/srv/",
        "/srv/data",
        "/srv/dota",
        "/srv/a/bc/d",
        "/srv/reports",
        "/srv/a/b/cache",
        "/srv/build/x",
        "/home/me",
        "/home/me/notes",
        "/home/me/.ssh",
        "/home/me/.config/deliverables",
        "/work/Cafe\u0301",  # decomposed: NFC makes it "Café"
        "/work/CAF\u00c9",
        "/work/.git",
        "/work/proj",
    ]
    names = [
        ".env",
        ".ENV",
        "id_rsa",
        "exact.txt",
        "final.pdf",
        "FINAL.PDF",
        "data",
        "build",
        "x.tmp",
        "private-plan.md",
        "a.json",
        "secret-01.txt",
        "secret-1.txt",
        "server.key",
        "readme.md",
        "t.csv",
        "settings.ini.lock",
        "\u0301accent-first",
        "Caf\u00e9",
        "cafe\u0301",
        "stra\u00dfe",
        "..",
        ".",
        "",
        "a/b",
    ]
    rng = random.Random(7)
    alphabet = ["a", "E", ".", "-", "\u0301", "\u00e9", "\u00df", "*", "k", "y"]
    names += ["".join(rng.choices(alphabet, k=rng.randint(1, 6))) for _ in range(300)]
    for folder, name in itertools.product(folders, names):
        expected = policy.denying_rule(f"{folder.rstrip('/')}/{name}")
        assert policy.in_folder(folder)(name) == expected, (folder, name)
