"""Markdown to HTML: raw HTML stays text, outline, links, images, code colours."""

from __future__ import annotations

from app.formats.markdown_html import (
    highlight_code,
    image_number,
    render_markdown,
    slugify,
)


def test_raw_html_is_shown_as_text_not_markup() -> None:
    rendered = render_markdown('<img src="/etc/passwd"> <script>alert(1)</script>')
    assert "<script>" not in rendered.html
    assert "&lt;script&gt;" in rendered.html
    assert '<img src="/etc/passwd">' not in rendered.html


def test_tables_strikethrough_and_task_lists_render() -> None:
    text = "|a|b|\n|-|-|\n|1|2|\n\n~~gone~~\n\n- [x] done\n- [ ] open\n"
    rendered = render_markdown(text)
    assert "<table" in rendered.html and "<td>1</td>" in rendered.html
    assert "<s>gone</s>" in rendered.html
    assert "\u2611" in rendered.html and "\u2610" in rendered.html
    assert "<input" not in rendered.html


def test_headings_form_an_outline_with_unique_anchors() -> None:
    rendered = render_markdown("# Intro\n\n## Use `it`\n\n# Intro\n")
    assert [(h.level, h.text, h.anchor) for h in rendered.headings] == [
        (1, "Intro", "intro"),
        (2, "Use it", "use-it"),
        (1, "Intro", "intro-1"),
    ]
    assert '<a name="intro-1"></a>' in rendered.html


def test_images_never_name_a_file_in_the_html() -> None:
    rendered = render_markdown("![chart](figure.png) ![x](/etc/hosts)")
    assert rendered.images == ("figure.png", "/etc/hosts")
    assert rendered.image_alts == ("chart", "x")
    assert "figure.png" not in rendered.html and "/etc/hosts" not in rendered.html
    assert image_number("mdimg:1") == 1
    assert image_number("file:///etc/hosts") is None


def test_links_are_collected_and_unsafe_schemes_are_not_links() -> None:
    rendered = render_markdown("[a](https://x.org) [b](#part) [c](javascript:alert(1))")
    assert rendered.links == ("https://x.org", "#part")


def test_fenced_code_is_coloured_for_known_languages_only() -> None:
    assert "<span" in highlight_code("def f(): pass\n", "python")
    assert highlight_code("<b>x</b>", "nosuchlanguage") == "&lt;b&gt;x&lt;/b&gt;"
    rendered = render_markdown("```python\nimport os\n```\n")
    assert "<pre><span" in rendered.html


def test_slugify_handles_symbols_and_repeats() -> None:
    used: set[str] = set()
    assert slugify("Hello, World!", used) == "hello-world"
    assert slugify("Hello, World!", used) == "hello-world-1"
    assert slugify("???", used) == "section"
