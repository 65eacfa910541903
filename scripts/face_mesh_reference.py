#!/usr/bin/env python3
"""MediaPipe's own face mesh subgraph (FaceLandmarkCpu of mediapipe 0.10.14, the one Holistic runs), on real face
crops, as the reference for handpose's face mesh models: the attention model's custom operators and the 478-point
refinement (`extract --holistic --refine-face`), and the plain model's 468 points.

  face_mesh_reference.py --out DIR [--angles 0,25] [--tight] IMAGE...      (.venv-holistic: make holistic-venv)

For each IMAGE and angle: the image turned by the angle (degrees, about its centre, edges replicated), the first
face FaceMesh finds in it, a square 1.5 times its landmarks' extent cut out and resized to 192x192; with --tight
also, named <angle>tight, a square of 0.7 times that side (the face filling it). The graph then runs on that 192x192 image with the region the whole image, so its model sees exactly those pixels. Writes
DIR/<image>-<angle>.rgb (192x192x3 bytes), .refined.f32 (478x3, with attention) and .mesh.f32 (468x3, without):
x, y normalised to the crop, z in the units of x. An image without a face is named on stderr and left out.
"""
import argparse, os, sys
import numpy as np
import cv2
import mediapipe as mp
from mediapipe.python import packet_creator, packet_getter
from mediapipe.framework.formats import rect_pb2
from mediapipe.python._framework_bindings import resource_util, calculator_graph, image_frame
from mediapipe.framework import calculator_pb2
from google.protobuf import text_format

GRAPH = '''
input_stream: "image" input_stream: "roi" input_side_packet: "with_attention" output_stream: "face_landmarks"
node { calculator: "FaceLandmarkCpu" input_stream: "IMAGE:image" input_stream: "ROI:roi"
       input_side_packet: "WITH_ATTENTION:with_attention" output_stream: "LANDMARKS:face_landmarks" }
'''


def mesh(crop, attention):
    out = []
    graph = calculator_graph.CalculatorGraph(graph_config=text_format.Parse(GRAPH, calculator_pb2.CalculatorGraphConfig()))
    graph.observe_output_stream("face_landmarks", lambda name, p: out.append(packet_getter.get_proto(p)))
    graph.start_run({"with_attention": packet_creator.create_bool(attention)})
    roi = rect_pb2.NormalizedRect(x_center=0.5, y_center=0.5, width=1.0, height=1.0, rotation=0.0)
    frame = image_frame.ImageFrame(image_format=image_frame.ImageFormat.SRGB, data=np.ascontiguousarray(crop))
    graph.add_packet_to_input_stream("image", packet_creator.create_image_frame(frame).at(0))
    graph.add_packet_to_input_stream("roi", packet_creator.create_proto(roi).at(0))
    graph.close()
    if not out:
        return None
    return np.array([[p.x, p.y, p.z] for p in out[0].landmark], dtype=np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--angles", default="0,25")
    ap.add_argument("--tight", action="store_true")
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    resource_util.set_resource_dir(os.path.dirname(os.path.dirname(mp.__file__)))
    for path in args.images:
        image = cv2.imread(path)
        if image is None:
            sys.exit("face_mesh_reference.py: cannot read %s" % path)
        image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        H, W = image.shape[:2]
        for angle in [float(a) for a in args.angles.split(",")]:
            turn = cv2.getRotationMatrix2D((W / 2, H / 2), angle, 1.0)
            turned = cv2.warpAffine(image, turn, (W, H), borderMode=cv2.BORDER_REPLICATE)
            with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=True) as fm:
                found = fm.process(turned)
            if not found.multi_face_landmarks:
                print("face_mesh_reference.py: no face in %s at %g degrees" % (path, angle), file=sys.stderr)
                continue
            points = np.array([[p.x * W, p.y * H] for p in found.multi_face_landmarks[0].landmark])
            centre = (points.min(0) + points.max(0)) / 2
            side = int((points.max(0) - points.min(0)).max() * 1.5)
            padded = cv2.copyMakeBorder(turned, side, side, side, side, cv2.BORDER_REPLICATE)
            for label, scale in [("", 1.0)] + ([("tight", 0.7)] if args.tight else []):
                cut = int(side * scale)
                x0, y0 = int(centre[0] - cut / 2), int(centre[1] - cut / 2)
                crop = cv2.resize(padded[y0 + side:y0 + side + cut, x0 + side:x0 + side + cut], (192, 192), interpolation=cv2.INTER_AREA)
                refined, plain = mesh(crop, True), mesh(crop, False)
                if refined is None or plain is None:
                    print("face_mesh_reference.py: the graph found no face in the crop of %s at %g degrees" % (path, angle), file=sys.stderr)
                    continue
                stem = os.path.join(args.out, "%s-%g%s" % (os.path.basename(path), angle, label))
                np.ascontiguousarray(crop).tofile(stem + ".rgb")
                refined.tofile(stem + ".refined.f32")
                plain.tofile(stem + ".mesh.f32")
                print("%s: %d and %d points" % (stem, len(refined), len(plain)))


if __name__ == "__main__":
    main()
