"""Vendor the game-icons.net icons listed in layouts/shared/icons/icons.txt as standalone SVG files."""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

NPM_PACKAGE = "@iconify-json/game-icons"
DEFAULT_VERSION = "1.2.4"
CC_BY_30_URL = "https://creativecommons.org/licenses/by/3.0/"
REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
from pnp.draw import iconset as iconset_module  # noqa: E402 - after the checkout is importable
DEFAULT_ICONS_DIR = REPO_ROOT / "layouts" / "shared" / "icons"


def read_wanted(list_path: Path) -> list[str]:
    """Return the icon names in list_path, in file order, without comments or duplicates."""
    names: list[str] = []
    for lineno, raw in enumerate(list_path.read_text(encoding="utf-8").splitlines(), 1):
        name = raw.split("#", 1)[0].strip()
        if not name:
            continue
        if name in names:
            print(f"warning: {list_path.name}:{lineno}: {name!r} listed twice", file=sys.stderr)
            continue
        names.append(name)
    return names


def load_from_dir(package_dir: Path) -> tuple[dict, dict, dict]:
    """Read icons.json, info.json and package.json from an unpacked npm package."""
    def load(name: str, required: bool = True) -> dict:
        path = package_dir / name
        if not path.is_file():
            if required:
                sys.exit(f"error: {path} not found (is --package the unpacked npm package?)")
            return {}
        return json.loads(path.read_text(encoding="utf-8"))
    return load("icons.json"), load("info.json", required=False), load("package.json")


def load_from_npm(version: str) -> tuple[dict, dict, dict]:
    """Run `npm pack` into a temporary directory and read the package's JSON files from the tarball."""
    spec = f"{NPM_PACKAGE}@{version}" if version else NPM_PACKAGE
    with tempfile.TemporaryDirectory(prefix="vendor_icons_") as tmp:
        try:
            subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", tmp],
                           check=True, stdout=subprocess.DEVNULL)
        except (OSError, subprocess.CalledProcessError) as exc:
            sys.exit(f"error: `npm pack {spec}` failed: {exc}")
        tarballs = sorted(Path(tmp).glob("*.tgz"))
        if len(tarballs) != 1:
            sys.exit(f"error: expected one tarball from npm pack, found {len(tarballs)}")
        out = []
        with tarfile.open(tarballs[0], "r:gz") as tar:
            for name in ("icons.json", "info.json", "package.json"):
                try:
                    member = tar.extractfile(f"package/{name}")
                except KeyError:
                    member = None
                if member is None:
                    if name == "info.json":
                        out.append({})
                        continue
                    sys.exit(f"error: package/{name} missing from {tarballs[0].name}")
                out.append(json.loads(member.read().decode("utf-8")))
        return out[0], out[1], out[2]


def resolve(name: str, iconset: dict) -> dict | None:
    """Return the icon data for name (following plain aliases), or None if unknown."""
    icons, aliases = iconset.get("icons", {}), iconset.get("aliases", {})
    seen = set()
    while name not in icons:
        alias = aliases.get(name)
        if alias is None or name in seen:
            return None
        extra = set(alias) - {"parent"}
        if extra:
            sys.exit(f"error: alias {name!r} uses transformations {sorted(extra)}, not supported")
        seen.add(name)
        name = alias["parent"]
    return icons[name]


def icon_svg(icon: dict, iconset: dict) -> str:
    """Build a standalone black SVG document for one icon (pnp's own writer, so both write the same)."""
    return iconset_module.icon_svg(icon, iconset)


def attribution(names: list[str], iconset: dict, info: dict, package: dict) -> str:
    """Render ATTRIBUTION.md for the vendored icons."""
    version = package.get("version", "unknown")
    author = info.get("author", {})
    licence = info.get("license", {})
    authors = {n: resolve(n, iconset).get("author") for n in names}
    per_icon = any(authors.values())
    lines = [
        "# Icon attribution",
        "",
        "The SVG files in this folder are icons from [game-icons.net](https://game-icons.net/),",
        f"taken from the npm package `{NPM_PACKAGE}` version {version}",
        "and written out by `tools/vendor_icons.py` (colour `currentColor` replaced by black).",
        "",
        f"Licence: Creative Commons Attribution 3.0 Unported (CC BY 3.0), {CC_BY_30_URL}",
    ]
    if licence:
        lines.append(f"(the package declares `{licence.get('spdx', licence.get('title', ''))}`"
                     + (f", {licence['url']}" if licence.get("url") else "") + ").")
    lines.append("")
    if per_icon:
        lines += ["Each icon's author, as recorded in the package:", ""]
    else:
        lines += [
            "The package records its authors only for the whole set, not per icon: "
            f"author \"{author.get('name', 'unknown')}\""
            + (f" ({author['url']})" if author.get("url") else "") + ".",
            "On game-icons.net each icon is credited to an individual artist; "
            "that per-icon credit is not part of the package data, so it is not listed here.",
            "",
        ]
    lines += ["| Icon | File | Author |", "| --- | --- | --- |"]
    set_author = author.get("name", "game-icons.net contributors")
    for name in names:
        who = authors[name] or f"{set_author} (set-level)"
        if isinstance(who, dict):
            who = who.get("name", "unknown")
        lines.append(f"| {name} | {name}.svg | {who} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", type=Path,
                        help="unpacked @iconify-json/game-icons package directory "
                             "(default: run `npm pack` into a temporary directory)")
    parser.add_argument("--version", default=DEFAULT_VERSION,
                        help=f"package version for npm pack (default {DEFAULT_VERSION}; '' for latest)")
    parser.add_argument("--icons-dir", type=Path, default=DEFAULT_ICONS_DIR,
                        help="folder holding icons.txt and receiving the SVG files")
    parser.add_argument("--prune", action="store_true",
                        help="delete .svg files in the icons folder that icons.txt no longer lists")
    args = parser.parse_args(argv)

    list_path = args.icons_dir / "icons.txt"
    if not list_path.is_file():
        print(f"error: {list_path} not found", file=sys.stderr)
        return 1
    wanted = sorted(read_wanted(list_path))

    if args.package:
        iconset, info, package = load_from_dir(args.package)
    else:
        iconset, info, package = load_from_npm(args.version)

    known = sorted(set(iconset.get("icons", {})) | set(iconset.get("aliases", {})))
    unknown = [n for n in wanted if resolve(n, iconset) is None]
    if unknown:
        for name in unknown:
            close = [k for k in known if name in k][:3]
            close += [k for k in difflib.get_close_matches(name, known, n=6, cutoff=0.5)
                      if k not in close][:6 - len(close)]
            hint = ", ".join(close) if close else "no close match"
            print(f"error: unknown icon {name!r}; closest: {hint}", file=sys.stderr)
        return 1

    every = sorted(set(iconset.get("icons", {})) | set(iconset.get("aliases", {})))
    iconset_module.NAMES.write_text(
        f"# The names of the game-icons.net icons in {NPM_PACKAGE} {package.get('version', '?')} (pnp icons "
        "search reads them;\n# written by tools/vendor_icons.py).\n" + "\n".join(every) + "\n", encoding="utf-8")
    for name in wanted:
        out = args.icons_dir / f"{name}.svg"
        out.write_text(icon_svg(resolve(name, iconset), iconset), encoding="utf-8", newline="\n")
    (args.icons_dir / "ATTRIBUTION.md").write_text(
        attribution(wanted, iconset, info, package), encoding="utf-8", newline="\n")
    # what was vendored, in `sha256sum -c` form: a test holds the files to it, so an icon changed by accident
    # (written through a hard link of a throw-away copy) fails the suite instead of shipping
    sums = "".join(f"{hashlib.sha256((args.icons_dir / f'{name}.svg').read_bytes()).hexdigest()}  {name}.svg\n"
                   for name in wanted)
    (args.icons_dir / "SHA256SUMS").write_text(sums, encoding="utf-8", newline="\n")

    stale = sorted(p for p in args.icons_dir.glob("*.svg") if p.stem not in wanted)
    for path in stale:
        if args.prune:
            os.remove(path)
            print(f"removed stale {path.name}")
        else:
            print(f"warning: {path.name} is not in icons.txt (use --prune to delete)", file=sys.stderr)
    print(f"wrote {len(wanted)} icons from {NPM_PACKAGE} {package.get('version', '?')} to {args.icons_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
