from catalog.models import Platform, Route


def test_the_snapshot_is_loaded_for_every_test(db):
    assert Route.objects.count() == 3905
    assert Platform.objects.count() == 2014
