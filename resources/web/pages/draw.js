// Draws the TeX math and Mermaid diagrams of a page the app wrote from Markdown
// (a document, or a notebook's cells).
//
// It runs in the preview's sandbox (an opaque origin with no network and no
// storage) after the bundled KaTeX and Mermaid, reads its limits from the
// root element's data attributes (set by app/formats/diagram_page.py), and
// writes every message as text. The app writes no more formulas and diagrams
// than a page draws; the counts hold here too, for a page with other HTML in
// it (a notebook's outputs). When everything is drawn, or has given up, it
// sets data-drawn="done" on the root element; the app waits for that.
"use strict";
(function () {
  const root = document.documentElement;
  const limits = root.dataset;
  const started = performance.now();
  const MESSAGE_CHARS = 1000;

  function number(name) {
    return Number(limits[name]);
  }

  function messageOf(error) {
    const text = error && error.message ? error.message : String(error);
    return text.length > MESSAGE_CHARS ? text.slice(0, MESSAGE_CHARS) + "…" : text;
  }

  function drawMath() {
    if (typeof katex === "undefined") {
      return;
    }
    const options = {
      throwOnError: false,
      trust: false,
      strict: "ignore",
      maxExpand: number("mathMaxExpand"),
      maxSize: number("mathMaxSize"),
      output: "htmlAndMathml",
    };
    const elements = document.querySelectorAll(".math");
    const count = Math.min(elements.length, number("mathMaxCount"));
    for (const element of Array.prototype.slice.call(elements, 0, count)) {
      const tex = element.textContent;
      try {
        options.displayMode = element.classList.contains("display");
        katex.render(tex, element, options);
      } catch (error) {
        // Errors KaTeX does not draw itself (too deep, too many expansions).
        element.textContent = tex;
        element.classList.add("math-error");
        element.title = "Not drawn: " + messageOf(error);
      }
    }
  }

  function tellFigure(figure, text) {
    figure.querySelector(".diagram-notice").textContent = text;
    figure.querySelector(".diagram-source").open = true;
    figure.classList.add("failed");
  }

  function withinTime(promise, milliseconds) {
    let timer = 0;
    const late = new Promise(function (_resolve, reject) {
      timer = setTimeout(function () {
        reject(new Error("it took more than " + milliseconds / 1000 + " seconds"));
      }, milliseconds);
    });
    return Promise.race([promise, late]).finally(function () {
      clearTimeout(timer);
    });
  }

  async function drawDiagrams() {
    const figures = document.querySelectorAll("figure.diagram[data-draw]");
    if (!figures.length || typeof mermaid === "undefined") {
      return;
    }
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: "strict",
      theme: limits.theme === "dark" ? "dark" : "default",
      maxTextSize: number("diagramMaxChars"),
      maxEdges: number("diagramMaxEdges"),
      suppressErrorRendering: true,
      deterministicIds: true,
      // Charts that take their width from their container would take none
      // from a page drawn while hidden (a tab behind another); they get a
      // fixed width instead and, like every diagram, shrink to fit the page.
      gantt: { useWidth: number("diagramWidth") },
      xyChart: { width: number("diagramWidth") },
    });
    const budget = number("drawingBudgetMs");
    const most = number("diagramMaxCount");
    let count = 0;
    for (const figure of figures) {
      count += 1;
      if (count > most) {
        tellFigure(
          figure,
          "This diagram is not drawn: a page draws at most " + most + " diagrams.",
        );
        continue;
      }
      if (performance.now() - started > budget) {
        tellFigure(
          figure,
          "This diagram is not drawn: the diagrams before it took all the time " +
            "the page has to draw.",
        );
        continue;
      }
      const source = figure.querySelector(".diagram-code").textContent;
      const drawing = figure.querySelector(".diagram-drawing");
      try {
        // Drawn inside its place, so a diagram that takes its width from
        // its container (a gantt chart) gets the page's.
        const drawn = await withinTime(
          mermaid.render("diagram-" + count, source, drawing),
          number("diagramBudgetMs"),
        );
        drawing.innerHTML = drawn.svg;
      } catch (error) {
        tellFigure(figure, "This diagram could not be drawn: " + messageOf(error));
      }
    }
  }

  async function draw() {
    try {
      drawMath();
    } catch (error) {
      console.error(messageOf(error));
    }
    try {
      await drawDiagrams();
    } catch (error) {
      console.error(messageOf(error));
    }
    try {
      await document.fonts.ready;
    } finally {
      root.dataset.drawn = "done";
    }
  }

  draw();
})();
