#!/usr/bin/env python3
"""Writes models/uvmms/uvmms.xml: seed 003's UVMMS (BlueROV2 Heavy with four 3-DOF arms).

The numbers live here once, each with its source; the four arms are the same arm placed
four times, so the MJCF is generated rather than written by hand. Run from the repository
root: python3 tools/make_uvmms_model.py. Sources and reconstructions: models/uvmms/README.md.
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEAVY = ROOT / "models" / "bluerov2_heavy" / "bluerov2_heavy.xml"
OUT = ROOT / "models" / "uvmms" / "uvmms.xml"

# seed 003 sec. 6.2 eq. 39: r_1|k/0 in the vehicle frame O_0 (FRD, m); every sign was lost
# in the text extraction: k = 1, 2 starboard (+y), k = 3, 4 port, k odd forward (reconstructed)
MOUNTS = {1: (0.08, 0.18, 0.32), 2: (-0.08, 0.18, 0.32), 3: (0.08, -0.18, 0.32), 4: (-0.08, -0.18, 0.32)}
L2 = 0.12   # seed 003 Table 1: a = 0.12 m from joint 2 to joint 3
L3 = 0.25   # NOT IN THE SEED (reconstructed): end effector; 0.224 <= L3 <= 0.304 reaches sec. 6.6's circle
RHO = 1000.0  # seed 003 sec. 6.2: rho_f = 1000 kg/m^3 for the three links

# seed 003 Table 2: mass (kg), inertia about the CoG in the link frame (1e-5 kg m^2,
# [Ixx Ixy Ixz; . Iyy Iyz; . . Izz]), CoG in the link frame (1e-3 m); signs as printed
LINKS = [
    dict(mass=0.096, I=(5.57, 4.87, 3.16, 0.09, 0.05, 0.09), cg=(5.33, 1.61, 1.00)),
    dict(mass=0.183, I=(3.72, 39.65, 38.08, 0.00, 0.35, 0.00), cg=(65.56, 0.01, 0.86)),
    dict(mass=0.217, I=(7.16, 138.66, 138.38, 0.47, 6.06, 0.02), cg=(53.78, 0.30, 1.09)),
]
# seed 003 Table 3: displaced volume (1e-3 m^3), added inertia diagonal (1e-3 kg m^2/rad),
# linear damping d (1e-3 kg/s) and D (1e-3 kg m/rad), link frame
HYDRO = [
    dict(volume=0.076, Ia=(0.004, 0.004, 0.0), d=(0.67, 0.67, 0.0), D=(0.07, 0.07, 0.07)),
    dict(volume=0.152, Ia=(0.0, 2.8, 2.8), d=(0.0, 0.67, 0.67), D=(0.07, 0.07, 0.07)),
    dict(volume=0.164, Ia=(0.0, 10.3, 10.3), d=(0.0, 0.67, 0.67), D=(0.07, 0.07, 0.07)),
]
# illustrative capsules (no mass; volume-consistent radii): link 1 along z1, links 2-3 along x
GEOMS = [
    'type="capsule" fromto="0 0 -0.03 0 0 0.03" size="0.02"',
    f'type="capsule" fromto="0 0 0 {L2} 0 0" size="0.02"',
    f'type="capsule" fromto="0 0 0 {L3} 0 0" size="0.0145"',
]
JOINT_TORQUE = 1.1376  # seed 003 sec. 6.2: joint actuator saturation, kg m^2 s^-2 (N m)


def fmt(x):
    return f"{x:.10g}"


def mirrored(link_index, arm):
    """Table 2's k = 3, 4 columns: mirror images of k = 1, 2 across the vehicle's x-z plane."""
    I = list(LINKS[link_index]["I"])
    cg = list(LINKS[link_index]["cg"])
    if arm in (3, 4):
        if link_index == 0:   # link 1 frame: y1 is the vehicle's y
            I[3], I[5], cg[1] = -I[3], -I[5], -cg[1]
        else:                 # links 2, 3: z2 = -y1
            I[4], I[5], cg[2] = -I[4], -I[5], -cg[2]
    return I, cg


def arm_bodies(k):
    x, y, z = MOUNTS[k]
    openers = [
        f'<!-- arm {k}: joint 1 at r_1|{k}/0 = ({x}, {y}, {z}) m FRD from O_0 (seed 003 eq. 39); '
        f'link 1 frame = O_0 axes (FRD) at q1 = 0 -->\n'
        f'<body name="arm{k}_link1" pos="{fmt(x)} {fmt(-y)} {fmt(-z)}" quat="0 1 0 0">',
        f"<!-- Table 1, T^1_2: alpha = pi/2, theta = q2 + pi/2 (Craig's modified DH) -->\n"
        f'<body name="arm{k}_link2" quat="0.5 0.5 -0.5 0.5">',
        f'<!-- Table 1, T^2_3: a = 0.12 m, theta = q3 -->\n<body name="arm{k}_link3" pos="{L2} 0 0">',
    ]
    lines = []
    for i in range(3):
        indent = " " * (8 + 2 * i)
        inner = indent + "  "
        I, cg = mirrored(i, k)
        for row in openers[i].split("\n"):
            lines.append(indent + row)
        lines.append(f'{inner}<joint name="arm{k}_q{i + 1}" type="hinge" axis="0 0 1"/>')
        note = " (k = 3, 4: mirrored, reconstructed)" if k > 2 else ""
        lines.append(f'{inner}<!-- Table 2 link {i + 1}{note} -->')
        lines.append(f'{inner}<inertial pos="{" ".join(fmt(v * 1e-3) for v in cg)}" mass="{LINKS[i]["mass"]}" '
                     f'fullinertia="{" ".join(fmt(v * 1e-5) for v in I)}"/>')
        lines.append(f'{inner}<geom name="arm{k}_link{i + 1}_geom" class="arm" {GEOMS[i]}/>')
    lines.append(" " * 14 + f'<site name="arm{k}_ee" pos="{L3} 0 0" size="0.01" rgba="1 0 0 1" group="2"/>')
    for i in reversed(range(3)):
        lines.append(" " * (8 + 2 * i) + "</body>")
    return lines


def link_plugins():
    hydro, buoy = [], []
    for k in MOUNTS:
        for i in range(3):
            h = HYDRO[i]
            _, cg = mirrored(i, k)
            ref = " ".join(fmt(v * 1e-3) for v in cg)
            mf = RHO * h["volume"] * 1e-3
            am = " ".join(fmt(v) for v in (mf, mf, mf)) + " " + " ".join(fmt(v * 1e-3) for v in h["Ia"])
            dl = " ".join(fmt(v * 1e-3) for v in h["d"] + h["D"])
            name = f"arm{k}_link{i + 1}"
            hydro.append(f'''      <instance name="{name}_hydro">
        <config key="body" value="{name}"/>
        <config key="frame" value="flu"/>
        <config key="added_mass" value="{am}"/>
        <config key="linear_damping" value="{dl}"/>
        <config key="quadratic_damping" value="0 0 0 0 0 0"/>
        <config key="reference_point" value="{ref}"/>
      </instance>''')
            buoy.append(f'''      <instance name="{name}_buoyancy">
        <config key="body" value="{name}"/>
        <config key="frame" value="flu"/>
        <config key="volume" value="{fmt(h["volume"] * 1e-3)}"/>
        <config key="center_of_buoyancy" value="{ref}"/>
        <config key="fluid_density" value="{RHO:g}"/>
      </instance>''')
    return hydro, buoy


def main():
    heavy = HEAVY.read_text()
    # the vehicle: the Heavy model, with seed 003's own added mass and damping reading
    heavy = heavy.replace('<mujoco model="bluerov2_heavy">', '<mujoco model="uvmms">')
    heavy = heavy.replace('<config key="added_mass" value="8.262 19.43 19.97 0.12 0.12 0.12"/>',
                          '<config key="added_mass" value="11.702 11.702 11.702 0.12 0.12 0.12"/>\n'
                          '        <!-- UVMMS (models/uvmms/README.md): seed 003 eq. 35 f_a = m_f a_r, i.e. the\n'
                          '             displaced fluid mass m_f0 = 11.702 kg (sec. 6.1) in all three axes -->')
    heavy = heavy.replace('<config key="quadratic_damping" value="18.18 21.66 36.99 1.55 1.55 1.55"/>',
                          '<config key="quadratic_damping" value="0 0 0 0 0 0"/>\n'
                          '        <!-- UVMMS: seed 003 sec. 4.3 models linear damping only -->')
    hydro, buoy = link_plugins()
    heavy = heavy.replace('      </instance>\n    </plugin>\n    <plugin plugin="nereid.buoyancy">\n',
                          '      </instance>\n' + '\n'.join(hydro)
                          + '\n    </plugin>\n    <plugin plugin="nereid.buoyancy">\n', 1)
    heavy = heavy.replace('      </instance>\n    </plugin>\n    <!-- Water current',
                          '      </instance>\n' + '\n'.join(buoy) + '\n    </plugin>\n    <!-- Water current', 1)
    heavy = heavy.replace('  <default>\n', '  <default>\n    <default class="arm">\n'
                          '      <geom contype="0" conaffinity="0" group="1" rgba="0.85 0.55 0.1 1"/>\n'
                          '    </default>\n', 1)
    arms = []
    for k in MOUNTS:
        arms += arm_bodies(k)
    heavy = heavy.replace('        <!-- Vehicle frame origin O_0 marker (no physics). -->',
                          '\n'.join(arms) + '\n\n        <!-- Vehicle frame origin O_0 marker (no physics). -->', 1)
    motors = "\n".join(
        f'    <motor name="arm{k}_q{j}_motor" joint="arm{k}_q{j}" gear="1" ctrllimited="true" '
        f'ctrlrange="-{JOINT_TORQUE} {JOINT_TORQUE}"/>' for k in MOUNTS for j in (1, 2, 3))
    heavy = heavy.replace('  </actuator>', '    <!-- joint motors, saturated at 1.1376 N m (seed 003 sec. 6.2) -->\n'
                          + motors + '\n  </actuator>', 1)
    heavy = re.sub(r'<key name="start" qpos="0 0 -2 1 0 0 0" qvel="0 0 0 0 0 0" ctrl="([^"]*)"/>',
                   lambda mm: '<key name="start" qpos="0 0 -2 1 0 0 0' + ' 0' * 12 + '" qvel="0 0 0 0 0 0'
                   + ' 0' * 12 + '" ctrl="' + mm.group(1) + ' 0' * 12 + '"/>', heavy)
    header = ('<!--\n  GENERATED by tools/make_uvmms_model.py from models/bluerov2_heavy/bluerov2_heavy.xml:\n'
              '  seed 003 (003_dda7c0eb3475f670.txt) section 6, the UVMMS: the BlueROV2 Heavy with four\n'
              '  identical 3-DOF anthropomorphic arms. Parameters and reconstructions: README.md here.\n-->\n')
    heavy = heavy.replace('<?xml version="1.0"?>\n', '<?xml version="1.0"?>\n' + header, 1)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(heavy)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
