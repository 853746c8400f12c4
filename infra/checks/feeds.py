#!/usr/bin/env python3
"""Parses a feed or a sitemap read from standard input with independent parsers and prints what
they read as JSON, for the feeds suite (infra/gateway/tests/api/feeds) to check field by field.

    feeds.py feed      RSS or Atom, with feedparser (pinned in infra/emulators/install.sh);
                       its own HTML sanitising and URI resolution are off, so the content is
                       what the document carries. `bozo` is 1 when the document is not
                       well-formed or breaks the format, with the reason in `bozo_exception`.
    feeds.py sitemap   a sitemaps.org 0.9 <urlset> or <sitemapindex>, with xml.etree; every
                       breach of the protocol (namespace, elements, absolute http(s) locations,
                       W3C date-times, at most 50,000 entries) is listed in `problems`.
"""

import calendar
import json
import re
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
W3C_DATETIME = re.compile(
    r"^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$"
)


def utc(parsed):
    """A feedparser time (a UTC struct_time) as the API writes times, or None."""
    if parsed is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(calendar.timegm(parsed)))


def feed(data):
    import feedparser

    parsed = feedparser.parse(data, sanitize_html=False, resolve_relative_uris=False)
    head = parsed.feed
    return {
        "bozo": int(parsed.bozo),
        "bozo_exception": str(parsed.get("bozo_exception", "")),
        "version": parsed.version,
        "feed": {
            "title": head.get("title"),
            "link": head.get("link"),
            "id": head.get("id"),
            "subtitle": head.get("subtitle"),
            "updated": utc(head.get("updated_parsed")),
            "links": [
                {"rel": l.get("rel"), "href": l.get("href"), "type": l.get("type")}
                for l in head.get("links", [])
            ],
        },
        "entries": [
            {
                "title": e.get("title"),
                "link": e.get("link"),
                "id": e.get("id"),
                "published": utc(e.get("published_parsed")),
                "updated": utc(e.get("updated_parsed")),
                "author": e.get("author"),
                "tags": [t.get("term") for t in e.get("tags", [])],
                "summary": e.get("summary"),
                "content": [
                    {"type": c.get("type"), "value": c.get("value")}
                    for c in e.get("content", [])
                ],
            }
            for e in parsed.entries
        ],
    }


def absolute(url):
    parts = urllib.parse.urlsplit(url or "")
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def sitemap(data):
    problems = []
    root = ET.fromstring(data)
    prefix = "{%s}" % NAMESPACE
    if not root.tag.startswith(prefix):
        problems.append("root %s is not in the sitemap namespace" % root.tag)
    kind = root.tag[len(prefix):]
    child = {"urlset": "url", "sitemapindex": "sitemap"}.get(kind)
    if child is None:
        problems.append("root is neither urlset nor sitemapindex: %s" % root.tag)
    allowed = {"loc", "lastmod", "changefreq", "priority"} if kind == "urlset" else {"loc", "lastmod"}
    entries = []
    for element in root:
        if element.tag != prefix + (child or ""):
            problems.append("unexpected element %s" % element.tag)
            continue
        entry = {}
        for field in element:
            name = field.tag[len(prefix):] if field.tag.startswith(prefix) else field.tag
            if name not in allowed:
                problems.append("unexpected element %s in %s" % (field.tag, child))
            entry[name] = (field.text or "").strip()
        if not absolute(entry.get("loc")):
            problems.append("loc is not an absolute http(s) URL: %r" % entry.get("loc"))
        if len(entry.get("loc", "")) >= 2048:
            problems.append("loc of 2,048 characters or more")
        if "lastmod" in entry and not W3C_DATETIME.match(entry["lastmod"]):
            problems.append("lastmod is not a W3C date-time: %r" % entry["lastmod"])
        entries.append(entry)
    if len(entries) > 50000:
        problems.append("%d entries, more than 50,000" % len(entries))
    return {"root": kind, "entries": entries, "problems": problems}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    data = sys.stdin.buffer.read()
    if mode == "feed":
        answer = feed(data)
    elif mode == "sitemap":
        answer = sitemap(data)
    else:
        sys.exit("usage: feeds.py feed|sitemap < document")
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
