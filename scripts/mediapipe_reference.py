#!/usr/bin/env python3
"""MediaPipe's own Python solution over clips, timed: the reference for `handpose bench extract`.

  mediapipe_reference.py CLIP...   prints JSON {frames, seconds, fps}: decode (OpenCV) + inference,
                                   one process, full models, 2 hands, video mode (as the corpus reference).
"""
import json, sys, time
import cv2
import mediapipe as mp

def main():
    frames = 0
    start = time.perf_counter()
    for path in sys.argv[1:]:
        with mp.solutions.hands.Hands(static_image_mode=False, max_num_hands=2, model_complexity=1,
                                      min_detection_confidence=0.5, min_tracking_confidence=0.5) as hands:
            cap = cv2.VideoCapture(path)
            while True:
                ok, bgr = cap.read()
                if not ok:
                    break
                hands.process(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
                frames += 1
            cap.release()
    seconds = time.perf_counter() - start
    print(json.dumps({"frames": frames, "seconds": seconds, "fps": frames / seconds}))

if __name__ == "__main__":
    main()
