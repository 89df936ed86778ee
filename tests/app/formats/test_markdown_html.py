"""Markdown to HTML: raw HTML stays text, outline, links, images, code colours."""

from __future__ import annotations

import pytest

from app.formats.markdown_html import (
    MAX_HIGHLIGHT_CODE,
    MAX_IMAGES,
    MAX_INLINE_NESTING,
    RenderStoppedError,
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
    # Headings carry no named anchors (a rich-text view imports those in
    # quadratic time); the view finds a heading by its place among them.
    assert rendered.html.count("<h1>") == 2 and "<a name" not in rendered.html


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


class _CountingSet(set[str]):
    lookups = 0

    def __contains__(self, item: object) -> bool:
        _CountingSet.lookups += 1
        return super().__contains__(item)


def test_many_equal_headings_get_their_slugs_in_linear_time() -> None:
    used = _CountingSet()
    numbers: dict[str, int] = {}
    slugs = [slugify("Same", used, numbers) for _ in range(2000)]
    assert slugs[:3] == ["same", "same-1", "same-2"] and slugs[-1] == "same-1999"
    assert _CountingSet.lookups < 3 * 2000
    # A heading that already took a numbered slug is skipped, not reused.
    assert slugify("Same 2000", used, numbers) == "same-2000"
    assert slugify("Same", used, numbers) == "same-2001"


def test_emphasis_nests_only_so_deep_and_the_rest_stays_text() -> None:
    depth = 1000
    rendered = render_markdown("*a " * depth + "b" + "*" * depth)
    assert rendered.html.count("<em>") == MAX_INLINE_NESTING
    assert rendered.html.count("</em>") == MAX_INLINE_NESTING
    assert rendered.html.count("*") == 2 * (depth - MAX_INLINE_NESTING)


def test_a_render_past_its_budget_stops() -> None:
    with pytest.raises(RenderStoppedError, match="too complex"):
        render_markdown("<!--" + "a\n" * 20_000, budget=0.0)


def test_a_render_nobody_waits_for_stops() -> None:
    with pytest.raises(RenderStoppedError, match="closed"):
        render_markdown("a *b*\n\n" * 5000, cancelled=lambda: True)


def test_images_past_the_limit_are_written_as_their_alt_text() -> None:
    rendered = render_markdown(" ".join(f"![p{n}](p{n}.png)" for n in range(100)))
    assert len(rendered.images) == MAX_IMAGES
    assert rendered.images_left_out == 100 - MAX_IMAGES
    assert rendered.html.count("<img") == MAX_IMAGES and "[p99]" in rendered.html


def test_very_long_fenced_code_is_left_plain() -> None:
    code = "x = 1\n" * (MAX_HIGHLIGHT_CODE // 6 + 1)
    assert "<span" not in highlight_code(code, "python")


def test_only_the_first_blocks_are_rendered_and_the_rest_is_counted() -> None:
    text = "# Title\n\n" + "".join(f"para {n}\n\n- item {n}\n\n" for n in range(10))
    whole = render_markdown(text, max_blocks=None)
    assert whole.blocks_left_out == 0 and "para 9" in whole.html
    part = render_markdown(text, max_blocks=5)
    # Title, para 0, the list of item 0, para 1, the list of item 1.
    assert part.blocks_left_out == 16
    assert "item 1</li>" in part.html and "para 2" not in part.html
    assert whole.html.startswith(part.html)
    assert [heading.text for heading in part.headings] == ["Title"]


def test_a_normal_document_is_rendered_whole() -> None:
    text = "# A\n\ntext\n\n## B\n"
    rendered = render_markdown(text)
    assert rendered.blocks_left_out == 0
    assert rendered.html == render_markdown(text, max_blocks=None).html


def test_a_pages_headings_carry_prefixed_ids_that_its_anchor_links_name() -> None:
    rendered = render_markdown("# Exports\n\nSee [exports](#exports).\n", page=True)
    assert '<h1 id="heading-exports">Exports</h1>' in rendered.html
    assert '<a href="#heading-exports">exports</a>' in rendered.html
    # No element is named like a global a library script looks for.
    assert 'id="exports"' not in rendered.html
    assert rendered.links == ("#exports",)


def test_a_page_names_each_image_by_the_key_it_is_served_under() -> None:
    rendered = render_markdown(
        "![chart](chart.png) ![secret](/etc/hosts)",
        page=True,
        image_keys=["images/0", None],
    )
    assert '<img src="images/0" alt="chart">' in rendered.html
    assert '<span class="missing-image">[secret]</span>' in rendered.html
    assert "/etc/hosts" not in rendered.html and "mdimg:" not in rendered.html
