"""The page in a real browser (Debian's Chromium through Playwright): the first click shows the
documented example's score, in view on a laptop's screen, and the comparison of two systems."""

import contextlib
import os
import shutil

import pytest

from conftest import ROOT

from space import requests as space
from space_helpers import PREDICTIONS, REFERENCES, TRANSFORMERS_BLEU, metric_paired_test

pytestmark = pytest.mark.slow  # a Space server and a browser


def chromium():
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Chromium (apt-get install -y chromium) for the browser test")
        pytest.skip("the browser test needs Chromium: install Debian's with `apt-get install -y chromium` "
                    "(as .ci/run does), then run the tests again")
    return path


SCREENSHOTS = ROOT / "screenshots"


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium, launched once for this module's tests (each launch, with Playwright's
    driver, takes 1.5-2 s); each test's page is in a browser context of its own, which shares no
    cookies, storage or cache with another's."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run"])
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def space_page(browser, url, height, width=1300):
    """The Space at ``url`` in a new page of ``browser``, 1300 pixels wide, in a context of its own
    that closes after."""
    SCREENSHOTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(url, timeout=60_000)
        yield page
    finally:
        context.close()


def test_page_in_a_real_browser(browser, space_server, tmp_path):
    from playwright.sync_api import expect

    with space_page(browser, space_server[0], 1600) as page:
        # The first click, with nothing typed: the documented example, both reference sets (the
        # second folded away, prefilled).
        expect(page.get_by_role("button", name="Compute BLEU")).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Compute BLEU").click()
        score = page.locator("#bleu-score")
        expect(score).to_contain_text("BLEU = 50.38", timeout=60_000)
        assert f"{100 * TRANSFORMERS_BLEU:.2f}" == "50.38"
        page.screenshot(path=str(SCREENSHOTS / "first-click.png"), full_page=True)
        page.get_by_label("Predictions", exact=True).fill("the cat sat on the mat\nhello world")
        page.get_by_label("References", exact=True).fill("the cat sat on the mat\nhello there world")
        page.get_by_text("More reference sets, and files").click()
        # The folded boxes get their prefilled values as they open, at times more than once: clear
        # the second set until it stays clear for half a second.
        second = page.get_by_label("References (second set)", exact=True)
        expect(second).to_have_value(space.EXAMPLE_REFERENCES_2, timeout=30_000)
        for _ in range(20):
            second.fill("")
            page.wait_for_timeout(500)
            if second.input_value() == "":
                break
        expect(second).to_have_value("")
        page.get_by_role("button", name="Compute BLEU").click()
        expected = space.score("the cat sat on the mat\nhello world", "the cat sat on the mat\nhello there world", max_order=2)
        try:
            expect(score).to_contain_text(f"BLEU = {100 * expected['bleu']:.2f}", timeout=60_000)
        except AssertionError as error:  # say what the page shows instead: a message, or nothing
            raise AssertionError(f"{error}\nthe page's messages: {page.locator('.toast-body').all_inner_texts()}") from None
        # The per-sentence table and the precisions render.
        expect(page.get_by_text("sentence BLEU").first).to_be_visible(timeout=30_000)
        expect(page.get_by_text("hello there world").first).to_be_visible()
        expect(page.locator("#precisions")).to_contain_text("2-gram precision")
        page.screenshot(path=str(SCREENSHOTS / "app.png"), full_page=True)
        # Selecting a row of the per-sentence table works that sentence out.
        page.get_by_text("hello world", exact=True).last.click()
        explanation = page.locator("#explanation")
        expect(explanation).to_contain_text("Line 2", timeout=30_000)
        explained = space.explain_line("the cat sat on the mat\nhello world", "the cat sat on the mat\nhello there world",
                                     "", "", "13a", 2, "none", "shortest", False, 1)
        expect(explanation).to_contain_text(f"sentence BLEU {100 * explained['sentence_bleu']:.2f}")
        expect(explanation).to_contain_text("1-grams: 2 / 2 clipped matches")
        expect(explanation).to_contain_text("2-grams: 0 / 1 clipped matches")
        expect(explanation).to_contain_text("c = 2 prediction tokens, r = 3 reference tokens: BP = exp(1 − r/c)")
        assert explanation.locator(".matched").count() == 2 and explanation.locator(".unmatched").count() == 2
        page.screenshot(path=str(SCREENSHOTS / "explain.png"), full_page=True)
        # A mismatched input shows a readable message, not a stack trace.
        page.get_by_label("References", exact=True).fill("only one line")
        page.get_by_role("button", name="Compute BLEU").click()
        expect(page.get_by_text("References has 1 lines").first).to_be_visible(timeout=30_000)
        assert "Traceback" not in page.content()
    assert (SCREENSHOTS / "app.png").stat().st_size > 10_000


def test_the_result_is_in_view_after_compute_on_a_laptop_screen(browser, space_server):
    """At 1366 x 768, the size of many laptops' screens, the first click on Compute shows the
    documented example's score, its precisions and the per-sentence table without scrolling."""
    from playwright.sync_api import expect

    with space_page(browser, space_server[0], 768, width=1366) as page:
        button = page.get_by_role("button", name="Compute BLEU")
        expect(button).to_be_visible(timeout=30_000)
        where = button.bounding_box()
        assert where is not None and where["y"] + where["height"] <= 768, ("Compute below the fold", where)
        button.click()
        expect(page.locator("#bleu-score")).to_contain_text("BLEU = 50.38", timeout=60_000)
        expect(page.get_by_text("sentence BLEU").first).to_be_visible(timeout=30_000)
        # Bounding boxes are relative to the viewport, so these hold only for what is in view now,
        # whatever the browser's fonts or Gradio's scrolling did to the page's height.
        for name, box in (("score", page.locator("#bleu-score")), ("precisions", page.locator("#precisions")),
                          ("table", page.locator("#sentences"))):
            where = box.bounding_box()
            assert where is not None and where["y"] >= 0 and where["y"] + where["height"] <= 768, (name, where)
            assert where["x"] >= 0 and where["x"] + where["width"] <= 1366, (name, where)
        page.screenshot(path=str(SCREENSHOTS / "laptop.png"))


def test_compare_view_in_a_real_browser(browser, space_server):
    from playwright.sync_api import expect

    expected = metric_paired_test(PREDICTIONS, space.EXAMPLE_SYSTEM_B, REFERENCES)
    with space_page(browser, space_server[0], 1100) as page:
        page.get_by_role("tab", name="Compare systems").click()
        page.get_by_role("button", name="Compare", exact=True).click()
        result = page.locator("#compare-result")
        expect(result).to_contain_text(f"p = {expected['system']['p_value']:.4f}", timeout=60_000)
        for name, label in (("baseline", "Baseline"), ("system", "Second system")):
            numbers = expected[name]
            expect(result).to_contain_text(f"{label}: BLEU {100 * numbers['bleu']:.2f} (resampled mean "
                                           f"{100 * numbers['mean']:.2f} ± {100 * numbers['ci']:.2f})")
        expect(page.get_by_text("How to read this")).to_be_visible()
        page.screenshot(path=str(SCREENSHOTS / "compare.png"), full_page=True)


def test_which_bleu_plots_every_convention_and_marks_those_that_give_a_score(browser, space_server):
    """The "Which BLEU?" view: with sacrebleu's score of the example reported, the spread of every
    convention is drawn, those that give the score marked, and listed, sacrebleu's first."""
    import exactbleu
    from playwright.sync_api import expect

    predictions, references = PREDICTIONS.split("\n"), REFERENCES.split("\n")
    reported = f"{100 * exactbleu.corpus_bleu(predictions, references, 'sacrebleu')['bleu']:.2f}"
    found = exactbleu.identify(predictions, references, reported)
    with space_page(browser, space_server[0], 1000) as page:
        page.get_by_role("tab", name="Which BLEU?").click()
        page.get_by_label("Reported score (as written: 27.3, 0.273)").fill(reported)
        page.get_by_role("button", name="Which BLEU?").click()
        spread = page.locator("#which-bleu")
        expect(spread).to_contain_text(f"{len(found.matches)} give {reported}", timeout=60_000)
        expect(spread).to_contain_text(f"{len(found.conventions) // 2} conventions")
        assert page.locator("#which-bleu circle.match").count() == len(found.matches)
        assert page.locator("#which-bleu circle").count() == len(found.conventions)
        expect(page.locator("#table")).to_contain_text("sacrebleu")
        assert spread.is_visible() and spread.bounding_box()["y"] < 1000  # in view without scrolling
        page.screenshot(path=str(SCREENSHOTS / "which-bleu.png"), full_page=True)
