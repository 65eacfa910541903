#!/usr/bin/env python3
"""Drives the `handpose review` page in headless Chromium against a running server and checks what a
user sees: the clip list, the hands drawn over a playing clip, segment editing with keyboard and mouse,
saving, and a save refused because the file changed on disk.

    review_browser.py --url 'http://127.0.0.1:PORT/?token=T' --annotations /abs/annotations.csv \\
        --clip actions/grab_0.mp4 --screenshots DIR

The server must be serving --annotations, and that file must be a copy: the test saves into it.
Prints one line per passed check; exits 1 with the failed check's message.
"""
import argparse, csv, json, math, os, sys, urllib.parse, urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

# The page's contract (Sources/Review/API.md): chirality colours, the time tolerance of the drawn-frame lookup, the
# 409 message.
COLORS = {"left": (60, 220, 255), "right": (255, 90, 60)}
TIME_TOLERANCE = 0.001
CHANGED_ON_DISK = "The annotation file changed on disk since this page loaded; your edits were not saved."
# Times the page writes are rounded to the millisecond; compare to within 1.5 ms.
SAVED_TIME_TOLERANCE = 0.0015
TEST_LABEL = "review_test"
WAIT = 30  # seconds; generous, as the test machine may be busy building


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def passed(message):
    print(f"ok: {message}", flush=True)


def wait_for(driver, condition, what, timeout=WAIT):
    """Waits until condition(driver) is truthy and returns it; a timeout is a failed check naming `what`."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)
    except TimeoutException:
        raise CheckFailed(f"timed out after {timeout} s waiting for {what}") from None


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def state(driver):
    return js(driver, "return window.reviewState || null")


# ---- The server, read directly

def api_get(base, path, token):
    request = urllib.request.Request(base + path, headers={"X-Handpose-Token": token})
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return json.load(response)
    except OSError as err:
        raise CheckFailed(f"GET {path} failed: {err}") from None


def read_rows(path):
    """The annotation file as (video, label, start, end) tuples in file order, times as floats or None."""
    number = lambda v: None if v in (None, "") else float(v)
    with open(path, newline="", encoding="utf-8") as f:
        if path.endswith(".json"):
            return [(r["video"], r["label"], number(r.get("start")), number(r.get("end"))) for r in json.load(f)]
        return [(r["video"], r["label"], number(r.get("start")), number(r.get("end"))) for r in csv.DictReader(f)]


def append_row(path, row):
    """Adds a valid segment to the file the way another program would, behind the page's back."""
    video, label, start, end = row
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            segments = json.load(f)
        segments.append({"video": video, "label": label, "start": start, "end": end})
        with open(path, "w", encoding="utf-8") as f:
            json.dump(segments, f, indent=2)
    else:
        with open(path, "rb") as f:
            ends_with_newline = f.read().endswith(b"\n")
        with open(path, "a", newline="", encoding="utf-8") as f:
            if not ends_with_newline:
                f.write("\n")
            csv.writer(f, lineterminator="\n").writerow([video, label, start, end])


# ---- Geometry of the hands drawn on the overlay

def shown_frame(frames, time):
    """The keypoint frame the page must draw at `time`: largest t <= time (+ the contract's tolerance)."""
    shown = None
    for frame in frames:
        if frame["t"] <= time + TIME_TOLERANCE:
            shown = frame
    return shown


def distance_to_segment(p, a, b):
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    k = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - (ax + k * dx), py - (ay + k * dy))


class Drawing:
    """Where a frame's hands are in canvas pixels, and which pixels are far from all of them."""

    def __init__(self, frame, bones, width, height):
        self.width, self.height = width, height
        self.scale = max(1.0, min(width, height) / 256)  # the page grows line widths with the frame
        self.bones = bones
        self.hands = [(h["chirality"], [(x * width, y * height) for x, y in h["landmarks"]]) for h in frame["hands"]]

    def distance(self, p, hands=None):
        """Distance from p to the nearest joint or bone of `hands` (default all)."""
        best = math.inf
        for _, points in hands if hands is not None else self.hands:
            best = min([best] + [math.hypot(p[0] - x, p[1] - y) for x, y in points] +
                       [distance_to_segment(p, points[a], points[b]) for a, b in self.bones])
        return best

    def near_label(self, p, hands=None):
        """Within reach of a hand's track label ("L #0"), written beside its wrist."""
        return any(math.hypot(p[0] - pts[0][0], p[1] - pts[0][1]) < 60 * self.scale
                   for _, pts in (hands if hands is not None else self.hands))

    def joints(self):
        """(pixel, colour) for each joint clear of the other hands, whose drawing could cover it."""
        out = []
        for k, (chirality, points) in enumerate(self.hands):
            others = self.hands[:k] + self.hands[k + 1:]
            for x, y in points:
                p = (math.floor(x), math.floor(y))
                if not (0 <= p[0] < self.width and 0 <= p[1] < self.height):
                    continue
                if others and (self.distance((x, y), others) < 12 * self.scale or self.near_label((x, y), others)):
                    continue
                out.append((p, COLORS[chirality]))
        return out

    def far(self, p, margin=20):
        """Pixel p is at least `margin` (at 256 px frames) from every joint, bone and label."""
        return self.distance((p[0] + 0.5, p[1] + 0.5)) >= margin * self.scale and not self.near_label(p)

    def far_pixels(self, step=8):
        return [(x, y) for y in range(step // 2, self.height, step) for x in range(step // 2, self.width, step)
                if self.far((x, y))]


def read_pixels(driver, points):
    """The overlay's pixels at `points`, read in one go with the drawn frame they belong to."""
    return js(driver, """
        const canvas = document.getElementById('overlay');
        const ctx = canvas.getContext('2d');
        return {time: document.getElementById('video').currentTime, drawnTime: window.reviewState.drawnTime,
                width: canvas.width, height: canvas.height,
                pixels: arguments[0].map(([x, y]) => Array.from(ctx.getImageData(x, y, 1, 1).data))};
        """, [list(p) for p in points])


def check_frame_pixels(driver, frame, drawing, also_transparent=()):
    """Joints in their hand's colour, opaque; pixels far from every hand (and `also_transparent`) empty."""
    joints = drawing.joints()
    empty = drawing.far_pixels() + [p for p in also_transparent]
    check(len(joints) >= 10, f"frame {frame['i']} has only {len(joints)} joints clear of other hands to check")
    check(len(empty) >= 20, f"frame {frame['i']} leaves only {len(empty)} pixels far from its hands")
    read = read_pixels(driver, [p for p, _ in joints] + empty)
    check(read["drawnTime"] == frame["t"],
          f"the overlay moved to t={read['drawnTime']} while its pixels were read (expected {frame['t']})")
    pixels = read["pixels"]
    for (p, color), rgba in zip(joints, pixels):
        close = all(abs(c - e) <= 2 for c, e in zip(rgba[:3], color)) and rgba[3] == 255
        check(close, f"frame {frame['i']}: joint pixel {p} is rgba{tuple(rgba)}, expected opaque rgb{color}")
    for p, rgba in zip(empty, pixels[len(joints):]):
        check(rgba[3] == 0, f"frame {frame['i']}: pixel {p}, far from every hand, is rgba{tuple(rgba)}, not transparent")
    return len(joints), len(empty)


# ---- The browser

def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # As root in CI: no sandbox; containers often give /dev/shm only 64 MB, which Chromium outgrows.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    except WebDriverException as err:
        raise CheckFailed(f"could not start headless Chromium: {err.msg}") from None


def press(driver, *keys):
    ActionChains(driver).send_keys(*keys).perform()


def press_ctrl(driver, key):
    ActionChains(driver).key_down(Keys.CONTROL).send_keys(key).key_up(Keys.CONTROL).perform()


def seek(driver, t):
    js(driver, "document.getElementById('video').currentTime = arguments[0]", t)
    wait_for(driver, lambda d: js(d, "const v = document.getElementById('video');"
                                     "return !v.seeking && window.reviewState.drawnTime === arguments[0]", t),
             f"the overlay to show the frame at t={t} after seeking there")


# ---- a. The clip list

def list_rows(driver):
    return js(driver, """
        return [...document.querySelectorAll('#clip-rows tr')].map(tr => ({
            path: tr.querySelector('a').textContent,
            marked: tr.classList.contains('no-keypoints') && tr.textContent.includes('no keypoints')}));""")


def check_list(driver, args, clips):
    by_path = {c["path"]: c for c in clips["clips"]}
    driver.get(args.url.split("#")[0] + "#/")
    wait_for(driver, lambda d: (state(d) or {}).get("page") == "list" and len(list_rows(d)) == len(by_path),
             f"the list to show {len(by_path)} rows, one per clip of /api/clips")
    rows = list_rows(driver)
    check(sorted(r["path"] for r in rows) == sorted(by_path), "the list's rows are not the clips of /api/clips")
    passed(f"list: one row per clip ({len(rows)})")

    wrong = [r["path"] for r in rows if r["marked"] != (not by_path[r["path"]]["keypoints"])]
    check(not wrong, f"rows marked 'no keypoints' wrongly (class no-keypoints and the text): {wrong}")
    without = sum(1 for c in by_path.values() if not c["keypoints"])
    passed(f"list: rows without keypoints marked ({without} of {len(rows)})")

    # Worst first: clips without keypoints, then detection rate ascending.
    rates = [by_path[r["path"]]["detectionRate"] for r in rows]
    key = [-1 if r is None else r for r in rates]
    check(key == sorted(key), f"default order is not worst first (detection rates in row order: {rates})")
    passed("list: default order worst first (no keypoints, then detection rate ascending)")
    driver.save_screenshot(os.path.join(args.screenshots, "review-list.png"))

    # Sorting: the Frames header, clicked once (ascending) and again (descending).
    default = [r["path"] for r in rows]
    frames = lambda: [by_path[r["path"]]["frames"] for r in list_rows(driver)]
    order = lambda values: [-1 if v is None else v for v in values]
    header = driver.find_element(By.CSS_SELECTOR, "#clip-columns th[data-key='frames']")
    header.click()
    wait_for(driver, lambda d: order(frames()) == sorted(order(frames())), "the list sorted by frames, ascending")
    ascending = [r["path"] for r in list_rows(driver)]
    check(ascending != default, "clicking the Frames header did not change the order")
    driver.find_element(By.CSS_SELECTOR, "#clip-columns th[data-key='frames']").click()
    wait_for(driver, lambda d: order(frames()) == sorted(order(frames()), reverse=True),
             "the list sorted by frames, descending, after a second click")
    passed("list: clicking a header sorts by it, clicking again reverses")

    # Filter: the clip's own class (or the first class with clips), then back to all.
    wanted = next((c for c in by_path[args.clip]["labels"]), None) or next(
        c for c in clips["classes"] if any(c in clip["labels"] for clip in by_path.values()))
    expected = sorted(p for p, c in by_path.items() if wanted in c["labels"])
    Select(driver.find_element(By.ID, "class-filter")).select_by_value(wanted)
    wait_for(driver, lambda d: sorted(r["path"] for r in list_rows(d)) == expected,
             f"the class filter '{wanted}' to leave exactly its clips {expected}")
    check(len(expected) < len(by_path), f"every clip has class {wanted}; the filter cannot be seen to reduce rows")
    passed(f"list: class filter '{wanted}' leaves its {len(expected)} clips")
    Select(driver.find_element(By.ID, "class-filter")).select_by_value("")
    wait_for(driver, lambda d: len(list_rows(d)) == len(by_path), "all rows back after choosing 'all classes'")


# ---- b. The overlay over a playing clip

def open_clip(driver, args, keypoints):
    link = next((a for a in driver.find_elements(By.CSS_SELECTOR, "#clip-rows a") if a.text == args.clip), None)
    check(link is not None, f"no link to {args.clip} in the list")
    link.click()
    wait_for(driver, lambda d: js(d, """
        const s = window.reviewState, v = document.getElementById('video');
        return s.page === 'clip' && s.clip === arguments[0] && v.readyState >= 2 && s.timeline !== null;""", args.clip), f"the clip page of {args.clip} with its video loaded")
    size = js(driver, "const c = document.getElementById('overlay'), v = document.getElementById('video');"
                      "return [c.width, c.height, v.videoWidth, v.videoHeight]")
    check(size[:2] == [keypoints["width"], keypoints["height"]] and size[:2] == size[2:],
          f"overlay canvas is {size[0]}x{size[1]}, video {size[2]}x{size[3]}, keypoints "
          f"{keypoints['width']}x{keypoints['height']}: they must agree")
    box = js(driver, "const r = (id) => { const b = document.getElementById(id).getBoundingClientRect();"
                     "return [b.left, b.top, b.width, b.height]; }; return [r('video'), r('overlay')]")
    check(all(abs(a - b) < 0.5 for a, b in zip(*box)), f"the overlay {box[1]} does not lie exactly over the video {box[0]}")
    passed(f"clip: {args.clip} opened from the list; overlay {size[0]}x{size[1]} exactly over the video")


def check_overlay(driver, args, keypoints):
    frames = keypoints["frames"]
    check(len(frames) >= 5, f"{args.clip} has only {len(frames)} keypoint frames; choose a longer clip")
    t0 = frames[int(0.4 * len(frames))]["t"]
    js(driver, "document.getElementById('video').play()")
    # Pause from inside the poll, the moment the clip passes t0, so a busy machine cannot overshoot the end.
    outcome = wait_for(driver, lambda d: js(d, """
        const v = document.getElementById('video');
        if (v.currentTime > arguments[0]) { v.pause(); return 'paused'; }
        return v.ended ? 'ended' : (v.error ? 'error ' + v.error.message : false);""", t0),
        f"the video to play past t0={t0}")
    check(outcome == "paused", f"the video did not play past t0={t0}: {outcome}")
    now = js(driver, "return document.getElementById('video').currentTime")
    frame = shown_frame(frames, now)
    wait_for(driver, lambda d: (state(d) or {}).get("drawnTime") == frame["t"],
             f"reviewState.drawnTime to become {frame['t']}, the keypoint frame for currentTime {now}")
    check(frame["hands"], f"frame {frame['i']} of {args.clip} has no hands to check; choose another clip")
    passed(f"clip: played past t0={t0}, paused at {now:.3f}; drawn frame {frame['i']} (t={frame['t']})")

    drawing = Drawing(frame, keypoints["bones"], keypoints["width"], keypoints["height"])
    joints, empty = check_frame_pixels(driver, frame, drawing)
    passed(f"clip: frame {frame['i']}: {joints} joints opaque in their chirality colour, "
           f"{empty} pixels far from the hands transparent")
    driver.save_screenshot(os.path.join(args.screenshots, "review-clip.png"))

    # Another frame: the old joint spots now clear of every hand must have been cleared. Clear means
    # 8 px, twice a joint's radius: hands in a short clip seldom move 20 px from where they were.
    def cleared(other):
        new = Drawing(other, keypoints["bones"], keypoints["width"], keypoints["height"])
        return new, [p for p, _ in drawing.joints() if new.far(p, margin=8)]
    candidates = [f for f in frames if f["hands"] and f is not frame]
    other = max(candidates, key=lambda f: len(cleared(f)[1]), default=None)
    check(other is not None, f"{args.clip} has no second frame with hands")
    new, old_spots = cleared(other)
    check(len(old_spots) >= 3, f"no frame of {args.clip} moves the hands far enough from frame {frame['i']}'s joints")
    seek(driver, other["t"])
    joints, empty = check_frame_pixels(driver, other, new, also_transparent=old_spots)
    passed(f"clip: after seeking to frame {other['i']}, its {joints} joints drawn and {len(old_spots)} of frame "
           f"{frame['i']}'s joint spots cleared")


# ---- c. Segments: keyboard, timeline drag, label, save

def selected_segment(driver):
    s = state(driver)
    return s["segments"][s["selected"]] if s and s["selected"] >= 0 else None


def check_editing(driver, args, keypoints, clips, names):
    frames = keypoints["frames"]
    before = read_rows(args.annotations)
    duration = js(driver, "return document.getElementById('video').duration")
    js(driver, "document.activeElement && document.activeElement.blur()")

    seek(driver, frames[0]["t"])  # from the start, so the clip cannot end between the two presses
    press(driver, " ")
    wait_for(driver, lambda d: js(d, "return !document.getElementById('video').paused"), "Space to start playback")
    press(driver, " ")
    wait_for(driver, lambda d: js(d, "return document.getElementById('video').paused"), "Space to pause again")
    check(not js(driver, "return document.getElementById('video').ended"),
          "the clip played to its end before the second Space; the pause cannot be told from the end")
    passed("keys: Space plays and pauses")

    j = int(0.3 * len(frames))
    seek(driver, frames[j]["t"])
    press(driver, Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: state(d)["drawnTime"] == frames[j + 1]["t"], f"ArrowRight to show frame {j + 1}")
    press(driver, Keys.ARROW_LEFT)
    wait_for(driver, lambda d: state(d)["drawnTime"] == frames[j]["t"], f"ArrowLeft to show frame {j} again")
    passed(f"keys: ArrowRight and ArrowLeft step one keypoint frame ({j} -> {j + 1} -> {j})")

    t1 = frames[j]["t"]
    count = len(state(driver)["segments"])
    check(state(driver)["selected"] == -1, "a segment is selected before any was chosen")
    press(driver, "[")
    wait_for(driver, lambda d: len(state(d)["segments"]) == count + 1 and state(d)["selected"] >= 0,
             "'[' with nothing selected to create and select a segment")
    segment = selected_segment(driver)
    check(abs(segment["start"] - t1) <= SAVED_TIME_TOLERANCE and abs(segment["end"] - duration) <= SAVED_TIME_TOLERANCE,
          f"'[' at {t1} made {segment}, expected start {t1}, end {duration} (the clip's end)")
    classes = by_clip_labels(clips, args.clip)
    if len(classes) == 1:
        check(segment["label"] == classes[0], f"the new segment is labelled {segment['label']!r}, not the clip's class")
    passed(f"keys: '[' at {t1} created segment {segment}")

    t2 = frames[int(0.7 * len(frames))]["t"]
    seek(driver, t2)
    press(driver, "]")
    wait_for(driver, lambda d: abs(selected_segment(d)["end"] - t2) <= SAVED_TIME_TOLERANCE, f"']' to set the end to {t2}")
    check(len(state(driver)["segments"]) == count + 1, "']' with a segment selected created another one")
    passed(f"keys: ']' at {t2} set the selected segment's end")

    # Drag the selected bar's end leftwards on the timeline.
    js(driver, "document.getElementById('timeline').scrollIntoView({block: 'center'})")
    s = state(driver)
    bar = next(b for b in s["timeline"]["bars"] if b["index"] == s["selected"])
    canvas = driver.find_element(By.ID, "timeline")
    width, height = s["timeline"]["width"], s["timeline"]["height"]
    dx = -int(min(80, (bar["x1"] - bar["x0"]) / 2))
    start_x, y = bar["x1"] - 1, (bar["y0"] + bar["y1"]) / 2
    (ActionChains(driver)
     .move_to_element_with_offset(canvas, round(start_x - width / 2), round(y - height / 2))
     .click_and_hold().move_by_offset(dx // 2, 0).move_by_offset(dx - dx // 2, 0).release().perform())
    moved_end = t2 + dx / width * duration
    pixel = duration / width
    wait_for(driver, lambda d: abs(selected_segment(d)["end"] - moved_end) <= 1.5 * pixel + SAVED_TIME_TOLERANCE,
             f"dragging the bar's end by {dx} px to move the end to about {moved_end:.3f}")
    segment = selected_segment(driver)
    check(abs(segment["start"] - t1) <= SAVED_TIME_TOLERANCE, f"dragging the end moved the start: {segment}")
    check(state(driver)["dirty"], "the page does not count the drag as an unsaved change")
    passed(f"timeline: dragging the end {dx} px moved it from {t2} to {segment['end']} (expected ~{moved_end:.3f})")

    press(driver, "l")
    wait_for(driver, lambda d: js(d, "return document.activeElement.id") == "segment-label", "'l' to focus #segment-label")
    press(driver, TEST_LABEL)  # 'l' selected the old label, so typing replaces it
    wait_for(driver, lambda d: selected_segment(d)["label"] == TEST_LABEL, f"the label to become {TEST_LABEL}")
    passed(f"editor: 'l' focused #segment-label; typed label {TEST_LABEL}")

    press_ctrl(driver, "s")
    wait_for(driver, lambda d: (state(d)["lastSave"] or {}).get("status") == 200, "Ctrl+S to save (status 200)")
    check(not state(driver)["dirty"], "the page still counts unsaved changes after a successful save")
    after = read_rows(args.annotations)
    ours = [r for r in after if r[0] in names and r[1] == TEST_LABEL]
    check(len(ours) == 1, f"expected exactly one {TEST_LABEL} row for {args.clip} in the file, found {ours}")
    _, _, start, end = ours[0]
    check(start is not None and abs(start - t1) <= SAVED_TIME_TOLERANCE, f"saved start {start}, expected {t1}")
    check(end is not None and abs(end - segment["end"]) <= SAVED_TIME_TOLERANCE, f"saved end {end}, expected {segment['end']}")
    rest = [r for r in after if r is not ours[0]]
    check(rest == before, "the other rows of the file changed on saving:\n  before " + repr(before) + "\n  after  " + repr(rest))
    passed(f"save: Ctrl+S wrote {ours[0]}; the other {len(before)} rows unchanged, in order")


def by_clip_labels(clips, path):
    return next(c["labels"] for c in clips["clips"] if c["path"] == path)


# ---- d. A save refused because the file changed on disk

def check_conflict(driver, args):
    other = read_rows(args.annotations)[0]
    append_row(args.annotations, (other[0], other[1], 0.25, 0.75))
    with open(args.annotations, "rb") as f:
        on_disk = f.read()
    press(driver, Keys.ESCAPE)  # leave the label field, so keys are commands again
    wait_for(driver, lambda d: js(d, "return document.activeElement.tagName") != "INPUT", "Escape to leave the label field")
    count = len(state(driver)["segments"])
    press(driver, "n")
    wait_for(driver, lambda d: len(state(d)["segments"]) == count + 1 and state(d)["dirty"], "'n' to add a segment")
    press_ctrl(driver, "s")
    wait_for(driver, lambda d: (state(d)["lastSave"] or {}).get("status") == 409,
             "the save after the file changed on disk to be refused (409)")
    status = driver.find_element(By.ID, "status").text
    check(status == CHANGED_ON_DISK, f"#status says {status!r}, expected {CHANGED_ON_DISK!r}")
    check(driver.find_element(By.ID, "reload").is_displayed(), "#reload is not shown after the 409")
    check(state(driver)["dirty"], "the page dropped its unsaved edits after the 409")
    with open(args.annotations, "rb") as f:
        check(f.read() == on_disk, "the annotation file is not byte for byte what was written behind the page's back")
    driver.save_screenshot(os.path.join(args.screenshots, "review-conflict.png"))
    passed("conflict: save refused with 409, #status says so, #reload shown, file untouched")


def check_console(driver):
    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE" and e["source"] == "javascript"]
    check(not errors, "JavaScript errors in the console:\n  " + "\n  ".join(errors))
    passed("console: no JavaScript errors")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", required=True, help="the address `handpose review` printed, token included")
    p.add_argument("--annotations", required=True, help="the annotation file the server edits (a copy)")
    p.add_argument("--clip", required=True, help="a video clip, relative to the server's root, with keypoints")
    p.add_argument("--screenshots", required=True, help="folder for review-list.png and review-clip.png")
    args = p.parse_args()
    url = urllib.parse.urlsplit(args.url)
    token = (urllib.parse.parse_qs(url.query).get("token") or [None])[0]
    if not token:
        p.error("--url has no ?token=")
    os.makedirs(args.screenshots, exist_ok=True)
    base = f"{url.scheme}://{url.netloc}"
    driver = None
    try:
        clips = api_get(base, "/api/clips", token)
        served = (clips.get("annotations") or {}).get("file")
        check(served and os.path.realpath(served) == os.path.realpath(args.annotations),
              f"the server edits {served}, not --annotations {args.annotations}")
        check(any(c["path"] == args.clip and c["kind"] == "video" and c["keypoints"] for c in clips["clips"]),
              f"--clip {args.clip} is not a video clip with keypoints on this server")
        keypoints = api_get(base, "/api/keypoints?clip=" + urllib.parse.quote(args.clip, safe=""), token)
        names = {s["video"] for s in api_get(base, "/api/annotations", token)["segments"] if s["clip"] == args.clip}
        names.add(args.clip)
        driver = start_browser()
        check_list(driver, args, clips)
        open_clip(driver, args, keypoints)
        check_overlay(driver, args, keypoints)
        check_editing(driver, args, keypoints, clips, names)
        check_conflict(driver, args)
        check_console(driver)
    except CheckFailed as failure:
        print(f"review_browser: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
    print("review_browser: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
