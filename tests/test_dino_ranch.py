"""The dinosaur ranch game's rules model catches what a designer gets wrong, with file:line:col.

Each test copies the shipped game into a throw-away project, makes one realistic mistake in its data
and checks the message `pnp validate` prints and where it points.
"""

from test_game_rules import edit, edit_match, errors, find, line_of, shipped

GAME = "dino-ranch"
CARDS = "cards/dino-ranch"


def test_a_contract_asking_for_a_dinosaur_not_in_the_game(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit(root, f"{CARDS}/contracts.yaml", "wants: [stegosaurus, stegosaurus, stegosaurus]",
                "wants: [stegosaurus, pachycephalosaurus, stegosaurus]")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/contracts.yaml:{line}:", "'pachycephalosaurus' is not an id in table 'species'")


def test_a_contract_worth_less_than_its_dinosaurs(tmp_path):
    root = shipped(tmp_path, GAME)
    # four Allosauruses score 8 in a ranch; a contract paying 8 for them is never worth fulfilling
    line = edit_match(root, f"{CARDS}/contracts.yaml",
                      r"wants: \[velociraptor, velociraptor, allosaurus, allosaurus\], vp: \d+",
                      "wants: [allosaurus, allosaurus, allosaurus, allosaurus], vp: 8")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/contracts.yaml:{line}:", "pays 8 points for dinosaurs worth 8 in the ranch")


def test_a_private_contract_outside_the_seeds_range(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit_match(root, f"{CARDS}/contracts.yaml", r"(?m)^- \{id: private-01,.*vp: 15\}",
                      "- {id: private-01, kind: private, wants: [stegosaurus, stegosaurus, stegosaurus, brachiosaurus, brachiosaurus], vp: 19}")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/contracts.yaml:{line}:", "a private contract is worth 15-17 points, this one 19")


def test_a_research_card_missing(tmp_path):
    root = shipped(tmp_path, GAME)
    edit_match(root, f"{CARDS}/research.yaml", r"(?m)^- \{id: security-force,.*\n", "")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/research.yaml:1:1:", "the Research deck has 30 cards, the data has 29")
    find(lines, f"{CARDS}/research.yaml:1:1:", "there are 15 Science cards, the data has 14")
    count_line = line_of(root, f"{CARDS}/game.yaml", "count: 30")
    find(lines, f"{CARDS}/game.yaml:{count_line}:", "component 'research' says count 30 but the data gives 29")


def test_a_ranch_side_with_a_different_number_of_spaces(tmp_path):
    root = shipped(tmp_path, GAME)
    # Lakeside: an open land space becomes a mountain, so the side has 15 buildable spaces, not 16
    edit(root, f"{CARDS}/ranches.yaml", '". ~ . . ."', '". ~ ^ . ."')
    sides = line_of(root, f"{CARDS}/ranches.yaml", "  number: 1\n") + 2  # the field's value: the first side
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/ranches.yaml:{sides}:", "ranch 1: side B (Lakeside) has 15 buildable spaces, every side has 16")


def test_a_ranch_side_yielding_more_than_the_first_round_income(tmp_path):
    root = shipped(tmp_path, GAME)
    edit(root, f"{CARDS}/ranches.yaml", '"P ^ . ~ P"', '"P ^ P ~ P"')
    sides = line_of(root, f"{CARDS}/ranches.yaml", "  number: 2\n") + 2
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/ranches.yaml:{sides}:", "side A (Twin Peaks) yields 6 plants, but the first round's income is 5 on every ranch")


def test_a_permanent_enclosure_in_pieces(tmp_path):
    root = shipped(tmp_path, GAME)
    edit(root, f"{CARDS}/ranches.yaml", 'enclosure: ["0,1", "0,2"]', 'enclosure: ["0,1", "2,2"]')
    sides = line_of(root, f"{CARDS}/ranches.yaml", "  number: 2\n") + 2
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/ranches.yaml:{sides}:", "side B (Cold Spring): enclosure space 0,1 touches no other space of the enclosure")


def test_a_resource_track_past_13(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit(root, f"{CARDS}/resources.yaml", "icon: meat, colour: \"#b8322a\", track: 13",
                "icon: meat, colour: \"#b8322a\", track: 14")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/resources.yaml:{line}:", "track: 14 is out of range (expected 1 to 13)")
    find(lines, f"{CARDS}/resources.yaml:{line}:", "the Meat track runs to 13, not 14")


def test_an_action_space_gaining_past_the_track(tmp_path):
    root = shipped(tmp_path, GAME)
    edit(root, f"{CARDS}/action_mats.yaml", "gain: {plants: 3}", "gain: {plants: 14}")
    sides = line_of(root, f"{CARDS}/action_mats.yaml", "  title: Supply Depot\n") + 2
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/action_mats.yaml:{sides}:", "mat C: 3-4 side, space 2 gains 14 plants, past the track's 13")


def test_a_rival_card_pointing_at_a_mat_that_has_enough(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit(root, f"{CARDS}/rivals.yaml", "{id: rival-b1, mat: B,", "{id: rival-b1, mat: A,")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/rivals.yaml:{line}:", "two Rival Rancher cards point at each Action Mat; mat A has 3")


def test_too_few_action_spaces_for_four_players(tmp_path):
    root = shipped(tmp_path, GAME)
    edit(root, f"{CARDS}/action_mats.yaml", "        - actions: [{do: barriers, amount: 2}]\n        - actions: [{do: barriers, amount: 1}",
         "        - actions: [{do: barriers, amount: 1}")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/action_mats.yaml:1:1:", "the 3-4 sides have 19 spaces, fewer than the 20 pieces 4 players place from round 4")


def test_a_carnivore_token_cut_round_like_the_herbivores(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit(root, f"{CARDS}/species.yaml", 'icon: velociraptor, shape: hex', 'icon: velociraptor, shape: circle')
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/species.yaml:{line}:", "Velociraptor: herbivores are round tokens and carnivores hexagons")
    token = line_of(root, f"{CARDS}/tokens.yaml", "{id: dino-velociraptor")
    find(lines, f"{CARDS}/tokens.yaml:{token}:", "Velociraptor tokens are cut as a circle: use dino-token")


def test_a_research_card_used_in_a_phase_the_round_does_not_have(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit(root, f"{CARDS}/research.yaml", "name: Breeding Center, type: science, vp: 1, when: Breed Dinosaurs",
                "name: Breeding Center, type: science, vp: 1, when: Hatching")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/research.yaml:{line}:", "when: 'Hatching' is not a timing of the turn (Collect Resources, Assign Ranchers")


def test_a_card_that_empties_the_holding_area_after_arrange_ranch(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit(root, f"{CARDS}/research.yaml", "icon: pterodactylus, when: Assign Ranchers",
                "icon: pterodactylus, when: Feed Dinosaurs")
    lines = errors(root, GAME)
    find(lines, f"{CARDS}/research.yaml:{line}:", "Pterodactyl: moves a dinosaur out of the holding area in Feed Dinosaurs")
