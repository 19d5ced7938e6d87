"""Saving and restoring a LunarLander position, so that the planner can clone it.

Gymnasium's ``LunarLander`` (``gymnasium.envs.box2d.lunar_lander``, discrete
and ``continuous=True``) keeps its position in a Box2D world, which
``copy.deepcopy`` cannot copy (the env's ``EzPickle`` makes a deep copy a new,
never reset env). :func:`get_state` and :func:`set_state` are the
``get_state``/``set_state`` pair :class:`~mcts_agent.adapters.GymnasiumModel`
takes::

    model = GymnasiumModel(env, get_state=get_state, set_state=set_state)

The snapshot (:class:`LanderSnapshot`, immutable) holds everything ``step``
reads: the terrain (fixed at ``reset``), the lander's and both legs' position,
angle, linear and angular velocity and awake flag, the legs'
``ground_contact`` flags, ``game_over``, ``prev_shaping`` and the wind and
turbulence indices. It does not hold the env's ``np_random``: the dispersion
of the engines' impulses is drawn from it in every ``step``, and the planner
reseeds the generators it finds in the env (an outcome drawn from the live
env's generator would foresee the live env's future draws).

Restoring rebuilds the world from the snapshot: a new ``b2World``, the moon
from the stored terrain, the lander, the legs and their joints, created in
the order ``reset`` creates them, then one ``world.Step`` of zero length
(it finds the contacts and evaluates which touch, firing the env's contact
listener; it moves nothing). A new world each time makes the outcome depend
on the snapshot only, never on what the scratch env did before (Box2D's
broad phase, contact lists and solver caches carry history; Gymnasium's own
``reset`` rebuilds the world for that reason, its issue 728).

What the snapshot cannot carry, so that a restored position is a close
model of the live one, not a bit-exact one (measured on 96 positions of 8
episodes, 20 steps each: in flight the observations and rewards of the
restored env and the live env differ by about 1e-6; with a leg on the ground
by up to about 1.6 after one step; ``tests/test_lunar_lander_state.py``
checks that the outcome depends on the snapshot only, bit for bit):

* Box2D's warm-starting impulses (contacts and the legs' joints) restart
  from zero: the solver's 180 velocity iterations a step make the
  difference small;
* each body's sleep timer restarts from zero: a lander resting on the pad
  falls asleep (the env's +100 landing) 0.5 s of simulated time after the
  restore at the earliest;
* the centre of mass is recomputed from the position and angle (a rounding
  step in single precision);
* the legs' ``ground_contact`` flags: the env's contact listener changes
  them only on contact events, so the snapshot keeps, besides the flags, the
  ground edges each leg touched; the restore sets the flags to what the
  listener would make of the change to the edges touching at the restored
  position (exact unless one leg starts and ends touching edges in the same
  step, whose order Box2D decides). The wind, which reads the flags before
  the step's contact evaluation, sees these new flags one step early;
* particles (drawn when rendering, never touching the lander) are dropped.

Requires Box2D (``pip install -e '.[box2d]'``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import Box2D
from Box2D.b2 import edgeShape, fixtureDef, polygonShape, revoluteJointDef
from gymnasium.envs.box2d.lunar_lander import (
    LANDER_POLY,
    LEG_AWAY,
    LEG_DOWN,
    LEG_H,
    LEG_SPRING_TORQUE,
    LEG_W,
    SCALE,
    ContactDetector,
    LunarLander,
)

__all__ = ["BodyState", "LanderSnapshot", "Terrain", "get_state", "set_state"]

_TERRAIN_ATTRIBUTE = "_mcts_agent_terrain"  # the terrain read once, kept on the moon body
_INDEX_ATTRIBUTE = "_mcts_agent_edge_index"


class Terrain(NamedTuple):
    """The ground of one episode, drawn at ``reset`` and fixed after.

    Attributes:
        edges: the moon's edge fixtures as ``((x1, y1), (x2, y2))`` in world
            units (metres, Box2D's), the flat bottom edge first, in the order
            ``reset`` creates them.
        helipad_x1, helipad_x2, helipad_y: the landing pad's ends and height.
        sky_polys: the env's ``sky_polys`` (drawn by ``render`` only).
    """

    edges: tuple[tuple[tuple[float, float], tuple[float, float]], ...]
    helipad_x1: float
    helipad_x2: float
    helipad_y: float
    sky_polys: tuple[tuple[tuple[float, float], ...], ...]


class BodyState(NamedTuple):
    """One Box2D body's motion, as Box2D reports it (single-precision values).

    Attributes:
        x, y: the body's origin in world units (metres).
        angle: radians.
        vx, vy: linear velocity of the centre of mass, metres per second.
        angular_velocity: radians per second.
        awake: Box2D's awake flag (the env ends the episode, +100, once the
            lander sleeps).
    """

    x: float
    y: float
    angle: float
    vx: float
    vy: float
    angular_velocity: float
    awake: bool


class LanderSnapshot(NamedTuple):
    """A LunarLander position (:func:`get_state`), immutable.

    Attributes:
        terrain: the episode's :class:`Terrain`.
        lander: the lander's :class:`BodyState`.
        legs: the left and right legs' :class:`BodyState` (``env.legs`` order).
        ground_contact: the legs' ``ground_contact`` flags.
        touching: for each leg, the indices in ``terrain.edges`` of the
            ground edges its Box2D contacts touched at the last contact
            evaluation (the flags change only when these do).
        game_over: True once the lander's body has touched the ground.
        prev_shaping: the shaping term of the last step (None before the
            first step).
        wind_idx, torque_idx: the wind and turbulence indices (None when the
            env has no wind).
    """

    terrain: Terrain
    lander: BodyState
    legs: tuple[BodyState, BodyState]
    ground_contact: tuple[bool, bool]
    touching: tuple[frozenset[int], frozenset[int]]
    game_over: bool
    prev_shaping: float | None
    wind_idx: int | None
    torque_idx: int | None


def get_state(env: Any) -> LanderSnapshot:
    """The position of a reset LunarLander, as an immutable snapshot.

    Args:
        env: a ``LunarLander`` (``env.unwrapped`` of ``gymnasium.make("LunarLander-v3")``,
            discrete or continuous), reset at least once.

    Returns:
        The :class:`LanderSnapshot`; later steps of ``env`` do not change it.

    Raises:
        TypeError: if ``env`` is not a ``LunarLander``.
        ValueError: if ``env`` has not been reset (it has no lander yet).
    """
    _check_env(env)
    if getattr(env, "lander", None) is None:
        raise ValueError(
            "get_state needs a LunarLander that has been reset; this one has no lander"
        )
    return LanderSnapshot(
        terrain=_terrain(env),
        lander=_body_state(env.lander),
        legs=(_body_state(env.legs[0]), _body_state(env.legs[1])),
        ground_contact=(bool(env.legs[0].ground_contact), bool(env.legs[1].ground_contact)),
        touching=_touching(env),
        game_over=bool(env.game_over),
        prev_shaping=None if env.prev_shaping is None else float(env.prev_shaping),
        wind_idx=int(env.wind_idx) if env.enable_wind else None,
        torque_idx=int(env.torque_idx) if env.enable_wind else None,
    )


def set_state(env: Any, snapshot: LanderSnapshot) -> None:
    """Puts ``env`` in the snapshot's position, in a new Box2D world.

    ``env`` may be any ``LunarLander`` with the snapshot's physics parameters
    (``gravity``; ``continuous`` and the wind settings are read by ``step``
    from ``env`` itself), reset or not (a deep copy of one is never reset).
    Its ``np_random`` is left as it is. The outcome of stepping ``env``
    afterwards depends on the snapshot, the actions and ``np_random`` only.

    Args:
        env: the ``LunarLander`` to move (changed in place).
        snapshot: a :class:`LanderSnapshot` from :func:`get_state`.

    Raises:
        TypeError: if ``env`` is not a ``LunarLander`` or ``snapshot`` not a
            :class:`LanderSnapshot`.
    """
    _check_env(env)
    if not isinstance(snapshot, LanderSnapshot):
        raise TypeError(f"snapshot must be a LanderSnapshot, got {type(snapshot).__name__}")
    terrain = snapshot.terrain
    env.particles = []  # bodies of the old world, which goes with it
    env.lander = env.legs = env.moon = None
    world = Box2D.b2World(gravity=(0, env.gravity))
    env.world = world

    moon = world.CreateStaticBody(shapes=edgeShape(vertices=list(terrain.edges[0])))
    for edge in terrain.edges[1:]:
        moon.CreateEdgeFixture(vertices=list(edge), density=0, friction=0.1)
    moon.color1 = (0.0, 0.0, 0.0)
    moon.color2 = (0.0, 0.0, 0.0)
    setattr(moon, _TERRAIN_ATTRIBUTE, terrain)
    env.moon = moon
    env.helipad_x1, env.helipad_x2 = terrain.helipad_x1, terrain.helipad_x2
    env.helipad_y = terrain.helipad_y
    env.sky_polys = [list(poly) for poly in terrain.sky_polys]

    lander = _create_body(
        world,
        snapshot.lander,
        fixtureDef(
            shape=polygonShape(vertices=[(x / SCALE, y / SCALE) for x, y in LANDER_POLY]),
            density=5.0,
            friction=0.1,
            categoryBits=0x0010,
            maskBits=0x001,
            restitution=0.0,
        ),
    )
    lander.color1 = (128, 102, 230)
    lander.color2 = (77, 77, 128)
    env.lander = lander
    legs = []
    for i, leg_state in zip((-1, +1), snapshot.legs, strict=True):
        leg = _create_body(
            world,
            leg_state,
            fixtureDef(
                shape=polygonShape(box=(LEG_W / SCALE, LEG_H / SCALE)),
                density=1.0,
                restitution=0.0,
                categoryBits=0x0020,
                maskBits=0x001,
            ),
        )
        leg.color1 = (128, 102, 230)
        leg.color2 = (77, 77, 128)
        joint = revoluteJointDef(
            bodyA=lander,
            bodyB=leg,
            localAnchorA=(0, 0),
            localAnchorB=(i * LEG_AWAY / SCALE, LEG_DOWN / SCALE),
            enableMotor=True,
            enableLimit=True,
            maxMotorTorque=LEG_SPRING_TORQUE,
            motorSpeed=+0.3 * i,
            referenceAngle=i * 0.05,  # reset's legs start at this angle to the lander
        )
        if i == -1:
            joint.lowerAngle, joint.upperAngle = +0.9 - 0.5, +0.9
        else:
            joint.lowerAngle, joint.upperAngle = -0.9, -0.9 + 0.5
        leg.joint = world.CreateJoint(joint)
        legs.append(leg)
    env.legs = legs
    env.drawlist = [lander, *legs]
    env.prev_shaping = snapshot.prev_shaping
    if snapshot.wind_idx is not None:
        env.wind_idx, env.torque_idx = snapshot.wind_idx, snapshot.torque_idx

    # A zero-length step finds the contacts and evaluates them, integrating nothing;
    # without a listener, so that it changes no flag. The env's next step evaluates the
    # same contacts at the same positions (its impulses change velocities only), so its
    # listener hears nothing: the flags are set here to what the live env's listener
    # would make of the change from the snapshot's touching edges to these.
    world.Step(0.0, 6 * 30, 2 * 30)
    world.contactListener_keepref = ContactDetector(env)
    world.contactListener = world.contactListener_keepref
    now = _touching(env)
    for leg, flag, before, after in zip(
        legs, snapshot.ground_contact, snapshot.touching, now, strict=True
    ):
        begun, ended = after - before, before - after
        if begun and ended:  # the last one heard wins, in Box2D's contact order: unknown here
            leg.ground_contact = bool(after)
        elif begun or ended:  # BeginContact sets the flag, EndContact clears it
            leg.ground_contact = bool(begun)
        else:
            leg.ground_contact = flag
    env.game_over = snapshot.game_over or _lander_touches(env)
    # Touching contacts wake their bodies: put back the snapshot's sleep flags (a
    # sleeping lander is a finished episode).
    for body, body_state in zip((lander, *legs), (snapshot.lander, *snapshot.legs), strict=True):
        if not body_state.awake:
            body.awake = False


def _check_env(env: Any) -> None:
    if not isinstance(env, LunarLander):
        raise TypeError(
            f"expected a LunarLander (env.unwrapped of gymnasium.make('LunarLander-v3')), "
            f"got {type(env).__name__}"
        )


def _terrain(env: Any) -> Terrain:
    """The env's terrain, read once per world and kept on its moon body."""
    terrain = getattr(env.moon, _TERRAIN_ATTRIBUTE, None)
    if terrain is None:
        edges = tuple(
            tuple((float(x), float(y)) for x, y in fixture.shape.vertices)
            for fixture in env.moon.fixtures  # pybox2d lists them in creation order
        )
        terrain = Terrain(
            edges=edges,
            helipad_x1=float(env.helipad_x1),
            helipad_x2=float(env.helipad_x2),
            helipad_y=float(env.helipad_y),
            sky_polys=tuple(tuple(tuple(map(float, p)) for p in poly) for poly in env.sky_polys),
        )
        setattr(env.moon, _TERRAIN_ATTRIBUTE, terrain)
    return terrain


def _touching(env: Any) -> tuple[frozenset[int], frozenset[int]]:
    """For each leg, the indices of the ground edges its contacts touch (Box2D's flags)."""
    index = _edge_index(env)
    return tuple(
        frozenset(
            index[_edge(edge.other, edge.contact)]
            for edge in leg.contacts
            if edge.contact.touching and edge.other == env.moon
        )
        for leg in env.legs
    )


def _lander_touches(env: Any) -> bool:
    return any(edge.contact.touching for edge in env.lander.contacts)


def _edge(moon: Any, contact: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    fixture = contact.fixtureA if contact.fixtureA.body == moon else contact.fixtureB
    first, second = fixture.shape.vertices
    return ((first[0], first[1]), (second[0], second[1]))


def _edge_index(env: Any) -> dict:
    """``{edge: its index in the terrain's edges}``, kept on the moon body with the terrain."""
    index = getattr(env.moon, _INDEX_ATTRIBUTE, None)
    if index is None:
        index = {edge: i for i, edge in enumerate(_terrain(env).edges)}
        setattr(env.moon, _INDEX_ATTRIBUTE, index)
    return index


def _body_state(body: Any) -> BodyState:
    position = body.position
    velocity = body.linearVelocity
    return BodyState(
        position.x,
        position.y,
        body.angle,
        velocity.x,
        velocity.y,
        body.angularVelocity,
        body.awake,
    )


def _create_body(world: Any, state: BodyState, fixture: Any) -> Any:
    body = world.CreateDynamicBody(position=(state.x, state.y), angle=state.angle, fixtures=fixture)
    # After the fixtures: adding one moves the centre of mass and Box2D then shifts the
    # linear velocity by the angular velocity's cross product with the move.
    body.angularVelocity = state.angular_velocity
    body.linearVelocity = (state.vx, state.vy)
    return body
