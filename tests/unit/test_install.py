"""Finding and describing a Kafka installation, on fake install folders built in tmp_path.

Every find_kafka call passes `environ=` and `usual_places=` so no test looks at the real machine.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kafkatop.backends.lab.kafka_homes import (
    USUAL_PLACES,
    KafkaInstall,
    KafkaInstallError,
    KafkaNotFound,
    KafkaVersion,
    LabMode,
    Layout,
    detect_version,
    find_kafka,
    installs_root,
    open_install,
)

NO_PATH = {"PATH": ""}


def _touch(path: Path, text: str = "", executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if executable:
        path.chmod(0o755)


def apache(root: Path, version: str, configs: tuple[str, ...] = ("server.properties",), scala: str = "2.13") -> Path:
    """An Apache Kafka tarball layout: bin/*.sh, config/, libs/kafka_<scala>-<version>.jar and friends."""
    home = root / f"kafka_{scala}-{version}"
    for script in ("kafka-server-start.sh", "kafka-run-class.sh", "kafka-storage.sh"):
        _touch(home / "bin" / script, "#!/bin/sh\n", executable=True)
    for jar in (f"kafka_{scala}-{version}.jar", f"kafka-clients-{version}.jar", f"kafka-streams-scala_{scala}-1.0.jar"):
        _touch(home / "libs" / jar)
    for config in configs:
        _touch(home / "config" / config, "# stock\n")
    return home


def apache_4_1(root: Path) -> Path:
    return apache(root, "4.1.0", ("server.properties", "broker.properties", "controller.properties"))


def apache_3_9(root: Path) -> Path:
    configs = ("server.properties", "zookeeper.properties")
    kraft = tuple(f"kraft/{n}.properties" for n in ("server", "broker", "controller"))
    return apache(root, "3.9.0", configs + kraft)


def confluent(root: Path, name: str, jar: str, configs: tuple[str, ...]) -> Path:
    """A Confluent Platform layout: bin/ without .sh, etc/kafka/, share/java/kafka/."""
    home = root / name
    for script in ("kafka-server-start", "kafka-run-class", "zookeeper-server-start"):
        _touch(home / "bin" / script, "#!/bin/sh\n", executable=True)
    _touch(home / "share" / "java" / "kafka" / jar)
    for config in configs:
        _touch(home / "etc" / "kafka" / config, "# stock\n")
    return home


def confluent_3_2(root: Path) -> Path:
    return confluent(
        root, "confluent-3.2.0", "kafka_2.11-0.10.2.0-cp1.jar", ("server.properties", "zookeeper.properties")
    )


def confluent_7_5(root: Path) -> Path:
    kraft = tuple(f"kraft/{n}.properties" for n in ("server", "broker", "controller"))
    return confluent(
        root, "confluent-7.5.0", "kafka_2.13-7.5.0-ccs.jar", ("server.properties", "zookeeper.properties") + kraft
    )


def install_of(version: str, home: Path = Path("/opt/kafka")) -> KafkaInstall:
    """An in-memory install for mode logic, which only looks at the version."""
    return KafkaInstall(home, Layout.APACHE, KafkaVersion.parse(version), home / "bin", home / "config", ".sh")


# --- versions --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "numbers", "shown"),
    [
        ("3.9.0", (3, 9, 0), "3.9.0"),
        ("4.1.0", (4, 1, 0), "4.1.0"),
        ("0.10.2.0", (0, 10, 2), "0.10.2.0"),
        ("0.10.2.0-cp1", (0, 10, 2), "0.10.2.0"),
        ("2.0.1-cp3", (2, 0, 1), "2.0.1"),
        ("5.5.1-ccs", (2, 5, 1), "2.5.1 (Confluent 5.5.1-ccs)"),
        ("6.0.0-ccs", (2, 6, 0), "2.6.0 (Confluent 6.0.0-ccs)"),
        ("6.2.4-ccs", (2, 8, 4), "2.8.4 (Confluent 6.2.4-ccs)"),
        ("7.5.0-ccs", (3, 5, 0), "3.5.0 (Confluent 7.5.0-ccs)"),
        ("7.9.0-ce", (3, 9, 0), "3.9.0 (Confluent 7.9.0-ce)"),
        ("8.0.0-ccs", (4, 0, 0), "4.0.0 (Confluent 8.0.0-ccs)"),
    ],
)
def test_version_parse(text: str, numbers: tuple[int, int, int], shown: str) -> None:
    v = KafkaVersion.parse(text)
    assert (v.major, v.minor, v.patch) == numbers
    assert v.text == text
    assert str(v) == shown


def test_versions_order_numerically() -> None:
    assert KafkaVersion.parse("3.10.0") > KafkaVersion.parse("3.9.0")
    assert KafkaVersion.parse("7.5.0-ccs") < KafkaVersion.parse("3.9.0")  # AK 3.5 < AK 3.9
    assert KafkaVersion.parse("0.10.2.0") < KafkaVersion.parse("2.8.1")


def test_unparseable_version() -> None:
    with pytest.raises(KafkaInstallError, match="cannot read a Kafka version from 'trunk'"):
        KafkaVersion.parse("trunk")


def test_detect_version_layouts(tmp_path: Path) -> None:
    assert str(detect_version(apache_4_1(tmp_path))) == "4.1.0"
    assert str(detect_version(apache_3_9(tmp_path))) == "3.9.0"
    assert detect_version(confluent_3_2(tmp_path)) == KafkaVersion(0, 10, 2, "0.10.2.0-cp1")
    assert detect_version(confluent_7_5(tmp_path)) == KafkaVersion(3, 5, 0, "7.5.0-ccs")


def test_detect_version_ignores_build_artefact_jars(tmp_path: Path) -> None:
    home = apache(tmp_path, "3.6.2")
    # Newer-looking numbers in the artefacts would win if they were read as versions.
    for jar in ("kafka_2.13-9.9.9-sources.jar", "kafka_2.13-9.9.9-test.jar", "kafka_2.13-9.9.9-test-sources.jar"):
        _touch(home / "libs" / jar)
    _touch(home / "libs" / "kafka_2.13-9.9.9-javadoc.jar")
    assert detect_version(home) == KafkaVersion(3, 6, 2, "3.6.2")


def test_detect_version_falls_back_to_clients_jar(tmp_path: Path) -> None:
    home = apache(tmp_path, "3.7.1")
    (home / "libs" / "kafka_2.13-3.7.1.jar").unlink()
    _touch(home / "libs" / "kafka_2.13-3.7.1-test.jar")
    assert detect_version(home) == KafkaVersion(3, 7, 1, "3.7.1")


def test_detect_version_without_jars(tmp_path: Path) -> None:
    (tmp_path / "libs").mkdir()
    _touch(tmp_path / "libs" / "kafka_2.13-3.9.0-sources.jar")
    expected = f"cannot tell the Kafka version of {tmp_path}: no kafka_*.jar in libs/ or share/java/kafka/"
    with pytest.raises(KafkaInstallError, match=re.escape(expected)):
        detect_version(tmp_path)


# --- modes -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "modes"),
    [
        ("0.10.2.0", ("zk",)),
        ("2.8.1", ("zk",)),
        ("3.2.3", ("zk",)),
        ("3.3.0", ("zk", "kraft")),
        ("3.9.0", ("zk", "kraft")),
        ("7.5.0-ccs", ("zk", "kraft")),
        ("4.0.0", ("kraft",)),
        ("4.1.0", ("kraft",)),
    ],
)
def test_supported_and_default_modes(version: str, modes: tuple[LabMode, ...]) -> None:
    install = install_of(version)
    assert install.supported_modes == modes
    assert install.default_mode == modes[0]
    for mode in modes:
        install.check_mode(mode)


def test_check_mode_zookeeper_on_kafka_4() -> None:
    with pytest.raises(KafkaInstallError) as e:
        install_of("4.1.0").check_mode("zk")
    assert str(e.value) == (
        "Kafka 4.1.0 at /opt/kafka runs KRaft only: ZooKeeper mode was removed in Kafka 4.0; use --mode kraft, "
        "or point --kafka-home at a Kafka 3.x (`kafkatop install 3.9` downloads the last of them)"
    )


@pytest.mark.parametrize("version", ["2.8.1", "0.10.2.0", "3.2.3"])
def test_check_mode_kraft_before_3_3(version: str) -> None:
    with pytest.raises(KafkaInstallError, match=rf"^Kafka {re.escape(version)} at /opt/kafka has no production KRaft"):
        install_of(version).check_mode("kraft")
    with pytest.raises(KafkaInstallError, match="use --mode zk"):
        install_of(version).check_mode("kraft")


def test_check_mode_rejects_unknown_mode() -> None:
    with pytest.raises(KafkaInstallError, match="unknown lab mode 'raft'"):
        install_of("3.9.0").check_mode("raft")  # type: ignore[arg-type]


# --- opening one folder ----------------------------------------------------------------------------------------


def test_open_apache(tmp_path: Path) -> None:
    home = apache_4_1(tmp_path)
    install = open_install(str(home))
    assert install == KafkaInstall(
        home, Layout.APACHE, KafkaVersion(4, 1, 0, "4.1.0"), home / "bin", home / "config", ".sh"
    )
    assert install.script("kafka-server-start") == home / "bin" / "kafka-server-start.sh"
    assert install.script("kafka-storage.sh") == home / "bin" / "kafka-storage.sh"
    assert str(install) == f"Kafka 4.1.0 at {home}"


def test_open_confluent(tmp_path: Path) -> None:
    home = confluent_7_5(tmp_path)
    install = open_install(home)
    assert install.layout is Layout.CONFLUENT
    assert install.config_dir == home / "etc" / "kafka"
    assert install.script_suffix == ""
    assert install.script("kafka-server-start") == home / "bin" / "kafka-server-start"
    assert str(install) == f"Kafka 3.5.0 (Confluent 7.5.0-ccs) at {home}"


def test_open_bin_folder_and_homebrew_keg(tmp_path: Path) -> None:
    home = apache_3_9(tmp_path)
    assert open_install(home / "bin").home == home
    # Homebrew: the keg's bin/ holds .sh-less wrappers, libexec/ holds the real Apache layout.
    keg = tmp_path / "Cellar" / "kafka" / "3.9.0"
    _touch(keg / "bin" / "kafka-server-start", "#!/bin/sh\n", executable=True)
    (keg / "libexec").symlink_to(home)
    install = open_install(keg)
    assert install.home == keg / "libexec"
    assert install.layout is Layout.APACHE
    assert open_install(keg / "libexec").home == keg / "libexec"


def test_script_missing_names_the_path(tmp_path: Path) -> None:
    install = open_install(apache_4_1(tmp_path))
    with pytest.raises(KafkaInstallError, match=re.escape(str(install.bin_dir / "kafka-metadata-quorum.sh"))):
        install.script("kafka-metadata-quorum")


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ("missing", "does not exist"),
        ("file", "not a folder"),
        ("empty", "no bin/kafka-server-start.sh (Apache Kafka) or bin/kafka-server-start (Confluent Platform)"),
        ("no-jars", "no kafka_*.jar in libs/ or share/java/kafka/"),
        ("not-executable", "bin/kafka-server-start.sh is not executable"),
    ],
)
def test_open_rejects_with_reason(tmp_path: Path, setup: str, reason: str) -> None:
    target = tmp_path / "kafka"
    if setup == "file":
        _touch(target)
    elif setup == "empty":
        target.mkdir()
    elif setup == "no-jars":
        _touch(target / "bin" / "kafka-server-start.sh", executable=True)
    elif setup == "not-executable":
        target = apache_3_9(tmp_path)
        (target / "bin" / "kafka-server-start.sh").chmod(0o644)
    if setup == "not-executable" and os.access(target / "bin" / "kafka-server-start.sh", os.X_OK):
        pytest.skip("running as root: every file is executable")
    with pytest.raises(KafkaInstallError, match=re.escape(f"{target} is not a Kafka installation: {reason}")):
        open_install(target)


# --- stock configs ---------------------------------------------------------------------------------------------


def test_stock_config_kafka_4(tmp_path: Path) -> None:
    install = open_install(apache_4_1(tmp_path))
    config = install.config_dir
    assert install.stock_config("kraft") == config / "server.properties"
    assert install.stock_config("kraft", "broker") == config / "broker.properties"
    assert install.stock_config("kraft", "controller") == config / "controller.properties"
    with pytest.raises(KafkaInstallError, match="runs KRaft only"):
        install.stock_config("zk")


def test_stock_config_kafka_3_9(tmp_path: Path) -> None:
    install = open_install(apache_3_9(tmp_path))
    config = install.config_dir
    assert install.stock_config("zk") == config / "server.properties"
    assert install.stock_config("zk", "broker") == config / "server.properties"
    assert install.stock_config("zk", "zookeeper") == config / "zookeeper.properties"
    assert install.stock_config("kraft") == config / "kraft" / "server.properties"
    assert install.stock_config("kraft", "broker") == config / "kraft" / "broker.properties"
    assert install.stock_config("kraft", "controller") == config / "kraft" / "controller.properties"
    with pytest.raises(KafkaInstallError, match="a zk lab has no 'controller' node"):
        install.stock_config("zk", "controller")
    with pytest.raises(KafkaInstallError, match="a kraft lab has no 'zookeeper' node"):
        install.stock_config("kraft", "zookeeper")


def test_stock_config_3_x_without_kraft_folder_never_gives_the_zookeeper_one(tmp_path: Path) -> None:
    home = apache(tmp_path, "3.5.0", ("server.properties",))
    install = open_install(home)
    missing = home / "config" / "kraft" / "server.properties"
    with pytest.raises(KafkaInstallError, match=re.escape(f"has no stock combined config {missing}")):
        install.stock_config("kraft")


def test_stock_config_confluent(tmp_path: Path) -> None:
    old = open_install(confluent_3_2(tmp_path))
    assert old.stock_config("zk") == old.home / "etc" / "kafka" / "server.properties"
    assert old.stock_config("zk", "zookeeper") == old.home / "etc" / "kafka" / "zookeeper.properties"
    with pytest.raises(KafkaInstallError, match="no production KRaft"):
        old.stock_config("kraft")
    new = open_install(confluent_7_5(tmp_path))
    assert new.stock_config("kraft", "broker") == new.home / "etc" / "kafka" / "kraft" / "broker.properties"


def test_stock_config_missing_file_is_named(tmp_path: Path) -> None:
    install = open_install(apache(tmp_path, "4.0.0", ("server.properties",)))
    with pytest.raises(KafkaInstallError, match=re.escape(str(install.config_dir / "controller.properties"))):
        install.stock_config("kraft", "controller")


# --- finding ---------------------------------------------------------------------------------------------------


def test_explicit_beats_env_beats_path_beats_usual_places(tmp_path: Path) -> None:
    explicit, env, on_path, usual = (
        apache(tmp_path / d, v) for d, v in [("a", "3.6.0"), ("b", "3.7.0"), ("c", "3.8.0"), ("d", "4.1.0")]
    )
    environ = {"KAFKA_HOME": str(env), "PATH": str(on_path / "bin")}
    places = [str(usual)]
    assert find_kafka(str(explicit), environ=environ, usual_places=places).home == explicit
    assert find_kafka(None, environ=environ, usual_places=places).home == env
    del environ["KAFKA_HOME"]
    assert find_kafka(None, environ=environ, usual_places=places).home == on_path
    assert find_kafka(None, environ={}, usual_places=places).home == usual


def test_invalid_explicit_fails_at_once(tmp_path: Path) -> None:
    good = apache_4_1(tmp_path)
    with pytest.raises(KafkaInstallError, match=re.escape(f"--kafka-home {tmp_path / 'nope'} is not a Kafka")):
        find_kafka(str(tmp_path / "nope"), environ={"KAFKA_HOME": str(good)}, usual_places=[str(good)])


def test_invalid_kafka_home_fails_naming_it(tmp_path: Path) -> None:
    good = apache_4_1(tmp_path)
    (tmp_path / "empty").mkdir()
    environ = {"KAFKA_HOME": str(tmp_path / "empty"), "PATH": str(good / "bin")}
    with pytest.raises(KafkaInstallError, match=re.escape(f"KAFKA_HOME={tmp_path / 'empty'} is not a Kafka")) as e:
        find_kafka(environ=environ, usual_places=[str(good)])
    assert not isinstance(e.value, KafkaNotFound)


def test_empty_kafka_home_counts_as_unset(tmp_path: Path) -> None:
    good = apache_4_1(tmp_path)
    assert find_kafka(environ={"KAFKA_HOME": "", "PATH": ""}, usual_places=[str(good)]).home == good


def test_path_symlink_is_resolved_to_the_real_home(tmp_path: Path) -> None:
    home = confluent_7_5(tmp_path)
    links = tmp_path / "usr" / "local" / "bin"
    links.mkdir(parents=True)
    (links / "kafka-server-start").symlink_to(home / "bin" / "kafka-server-start")
    install = find_kafka(environ={"PATH": f"{tmp_path / 'nothing-here'}{os.pathsep}{links}"}, usual_places=[])
    assert install.home == home.resolve()
    assert install.layout is Layout.CONFLUENT


def test_path_script_outside_an_install_is_passed_over(tmp_path: Path) -> None:
    wrappers = tmp_path / "usr" / "bin"
    _touch(wrappers / "kafka-server-start.sh", "#!/bin/sh\n", executable=True)  # e.g. a distro wrapper in /usr/bin
    good = apache_3_9(tmp_path)
    assert find_kafka(environ={"PATH": str(wrappers)}, usual_places=[str(good)]).home == good


def test_usual_places_pick_the_newest(tmp_path: Path) -> None:
    opt = tmp_path / "opt"
    older, newest, middle = apache(opt, "3.9.0"), apache(opt, "4.1.0", scala="2.12"), apache(opt, "4.0.0")
    (opt / "kafka").symlink_to(middle)
    _touch(opt / "kafka_2.13-9.9.9.tgz")  # a downloaded tarball beside the folders
    found = find_kafka(environ=NO_PATH, usual_places=[str(opt / "kafka"), str(opt / "kafka_*")])
    assert found.home == newest
    assert older.is_dir() and found.version > open_install(opt / "kafka").version


def test_usual_places_expand_home_from_environ(tmp_path: Path) -> None:
    home = apache(tmp_path / "me", "3.9.0")
    found = find_kafka(environ={"HOME": str(tmp_path / "me"), "PATH": ""}, usual_places=["~/kafka_*"])
    assert found.home == home


def test_not_found_lists_everywhere_looked(tmp_path: Path) -> None:
    wrappers = tmp_path / "bin"
    _touch(wrappers / "kafka-server-start", "#!/bin/sh\n", executable=True)
    (tmp_path / "opt" / "kafka").mkdir(parents=True)
    places = [str(tmp_path / "opt" / "kafka"), str(tmp_path / "opt" / "kafka_*"), str(tmp_path / "gone")]
    with pytest.raises(KafkaNotFound) as e:
        find_kafka(environ={"PATH": str(wrappers)}, usual_places=places)
    assert e.value.looked == (
        "KAFKA_HOME (not set)",
        f"PATH {wrappers / 'kafka-server-start'} -> {tmp_path.resolve()} "
        "(no kafka_*.jar in libs/ or share/java/kafka/)",
        f"{tmp_path / 'opt' / 'kafka'} (no bin/kafka-server-start.sh (Apache Kafka) or bin/kafka-server-start "
        "(Confluent Platform))",
        f"{tmp_path / 'opt' / 'kafka_*'} (no folder matches)",
        f"{tmp_path / 'gone'} (does not exist)",
    )
    message = str(e.value)
    assert message.startswith("no Kafka installation found; looked in: KAFKA_HOME (not set); PATH ")
    assert message.endswith(
        "`kafkatop install` downloads Apache Kafka; or point kafkatop at an installation with --kafka-home DIR or "
        "KAFKA_HOME=DIR."
    )


def test_not_found_with_empty_path() -> None:
    with pytest.raises(KafkaNotFound) as e:
        find_kafka(environ=NO_PATH, usual_places=[])
    assert e.value.looked == ("KAFKA_HOME (not set)", "PATH (no kafka-server-start.sh or kafka-server-start)")


def test_default_usual_places_cover_the_common_spots() -> None:
    assert {"/opt/kafka", "/opt/kafka_*", "~/kafka_*", "/opt/confluent*", "/opt/homebrew/opt/kafka/libexec"} <= set(
        USUAL_PLACES
    )


# --- the real installation, when there is one -------------------------------------------------------------------


@pytest.mark.kafka
def test_real_kafka_home(kafka_home: Path) -> None:
    home = kafka_home
    install = find_kafka(environ={"KAFKA_HOME": str(home), "PATH": ""}, usual_places=[])
    found = [*(install.home / "libs").glob("kafka_*.jar"), *(install.home / "share/java/kafka").glob("kafka_*.jar")]
    jars = [j.name for j in found if not j.name.endswith(("-sources.jar", "-test.jar"))]
    assert jars, f"no kafka_*.jar in {install.home}"
    assert any(j.endswith(f"-{install.version.text}.jar") for j in jars), (install.version, jars)
    assert install.version.at_least(0, 8)
    install.check_mode(install.default_mode)
    assert install.stock_config(install.default_mode).is_file()


def test_kafkatops_own_installs_are_found_and_zk_mode_takes_a_3x(tmp_path: Path) -> None:
    """What `kafkatop install` unpacked ($XDG_DATA_HOME/kafkatop/kafka) is a usual place; --mode zk prefers the
    newest install that runs ZooKeeper mode over a newer 4.x."""
    root = tmp_path / "data" / "kafkatop" / "kafka"
    newest = apache_4_1(root)
    zk = apache_3_9(root)
    environ = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path / "home"), "PATH": ""}
    assert installs_root(environ) == root
    places = [str(installs_root(environ) / "kafka_*")]
    assert find_kafka(environ=environ, usual_places=places).home == newest
    assert find_kafka(environ=environ, usual_places=places, mode="zk").home == zk
    assert find_kafka(environ=environ, usual_places=places, mode="kraft").home == newest
    # the default places begin with kafkatop's own, so an equal version elsewhere does not win over it
    assert find_kafka(environ=environ, mode="zk").home == zk
