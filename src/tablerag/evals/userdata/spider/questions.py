"""The Spider semantic set's questions (``--set spider``): ten over ``car_1``, ten over
``dog_kennels``, each naming what only the semantic model defines — a metric (燃油经济性,
功重比, vet bill, 次均诊疗费用), a named filter (肌肉车, 省油车, 流浪狗, senior dogs, vets) or a
synonym the schema never uses. Written, with their gold SQL over the Spider files, before
tablerag answered any of them; every expected value is the gold SQL's result (``tests/evals/
test_userdata_spider.py`` runs the gold again when the Spider folder is there).

The definitions the questions rely on (:mod:`.model`): a muscle car has 8 cylinders and at least
150 horsepower; an economy car at least 30 MPG; a heavy car over 3,500 lb; a small-engine car at
most 4 cylinders; power-to-weight is horsepower per 1,000 lb; a stray (流浪狗) is a dog whose
``abandoned_yn`` is ``'1'``; a senior dog is 8 years or older; a vet is the role spelled
``Veterenarian`` in the data. Kinds: ``metric`` (one figure), ``breakdown`` (per dimension),
``topk`` (the first of a ranking), ``filter`` (a named filter only the model defines).
"""

from __future__ import annotations

from tablerag.evals.userdata.questions import Question

_HP = "CAST(NULLIF(d.Horsepower, 'null') AS REAL)"
_MPG = "CAST(NULLIF(d.MPG, 'null') AS REAL)"
_MUSCLE = f"d.Cylinders = 8 AND {_HP} >= 150"
_CARS = (
    "FROM cars_data d JOIN car_names n ON n.MakeId = d.Id JOIN model_list l ON l.Model = n.Model "
    "JOIN car_makers m ON m.Id = l.Maker"
)
_TREATED = (
    "FROM Treatments t JOIN Dogs d ON d.dog_id = t.dog_id JOIN Treatment_Types y ON "
    "y.treatment_type_code = t.treatment_type_code"
)
_SENIOR = "CAST(d.age AS INTEGER) >= 8"

CAR_1: tuple[Question, ...] = (
    Question(
        "sp-01",
        "1973年及以后的年款里，肌肉车有多少辆？",
        "filter",
        numbers=((32,),),
        sql=f"SELECT COUNT(*) FROM cars_data d WHERE {_MUSCLE} AND d.Year >= 1973",
    ),
    Question(
        "sp-02",
        "Which three manufacturers have the best average fuel economy?",
        "topk",
        facts=(("triumph",), ("honda",), ("renault",)),
        sql=f"SELECT m.Maker, AVG({_MPG}) {_CARS} GROUP BY m.Maker ORDER BY 2 DESC LIMIT 3",
    ),
    Question(
        "sp-03",
        "省油车的平均马力是多少？",
        "filter",
        numbers=((70.7222,),),
        sql=f"SELECT AVG({_HP}) FROM cars_data d WHERE {_MPG} >= 30",
    ),
    Question(
        "sp-04",
        "For each number of cylinders, what is the car count among heavy cars?",
        "breakdown",
        numbers=((1,), (16,), (96,)),
        sql="SELECT d.Cylinders, COUNT(*) FROM cars_data d WHERE d.Weight > 3500 GROUP BY 1",
    ),
    Question(
        "sp-05",
        "1975年款车的平均燃油经济性是多少？",
        "metric",
        numbers=((20.2667,),),
        sql=f"SELECT AVG({_MPG}) FROM cars_data d WHERE d.Year = 1975",
    ),
    Question(
        "sp-06",
        "ford 旗下肌肉车的最大马力是多少？",
        "filter",
        numbers=((215,),),
        sql=f"SELECT MAX({_HP}) {_CARS} WHERE {_MUSCLE} AND m.Maker = 'ford'",
    ),
    Question(
        "sp-07",
        "功重比最高的品牌是哪个？",
        "topk",
        facts=(("bmw",),),
        sql=(
            f"SELECT n.Model, AVG({_HP} * 1000.0 / d.Weight) FROM cars_data d JOIN car_names n "
            "ON n.MakeId = d.Id GROUP BY n.Model ORDER BY 2 DESC LIMIT 1"
        ),
    ),
    Question(
        "sp-08",
        "What is the power-to-weight ratio of muscle cars built before 1975?",
        "metric",
        numbers=((41.5016,),),
        sql=(
            f"SELECT AVG({_HP} * 1000.0 / d.Weight) FROM cars_data d WHERE {_MUSCLE} "
            "AND d.Year < 1975"
        ),
    ),
    Question(
        "sp-09",
        "小排量车里省油车的占比是多少？",
        "metric",
        numbers=((0.4171, 41.71),),
        sql=(
            f"SELECT AVG(CASE WHEN {_MPG} >= 30 THEN 1.0 ELSE 0.0 END) FROM cars_data d "
            "WHERE d.Cylinders <= 4"
        ),
    ),
    Question(
        "sp-10",
        "What is the average 0-60 time of muscle cars?",
        "filter",
        numbers=((12.1314,),),
        sql=f"SELECT AVG(d.Accelerate) FROM cars_data d WHERE {_MUSCLE}",
    ),
)

DOG_KENNELS: tuple[Question, ...] = (
    Question(
        "sp-11",
        "流浪狗一共花了多少医疗费？",
        "filter",
        numbers=((3157,),),
        sql=f"SELECT SUM(t.cost_of_treatment) {_TREATED} WHERE d.abandoned_yn = '1'",
    ),
    Question(
        "sp-12",
        "What is the average cost per visit for each treatment type?",
        "breakdown",
        numbers=((485.8,), (478.4,), (508,)),
        sql=(
            f"SELECT y.treatment_type_description, AVG(t.cost_of_treatment) {_TREATED} GROUP BY 1"
        ),
    ),
    Question(
        "sp-13",
        "各犬种的就诊犬只数是多少？",
        "breakdown",
        numbers=((3,),),
        facts=(("Bulldog",), ("Eskimo",), ("Husky",)),
        sql=(
            "SELECT b.breed_name, COUNT(DISTINCT t.dog_id) FROM Treatments t JOIN Dogs d ON "
            "d.dog_id = t.dog_id JOIN Breeds b ON b.breed_code = d.breed_code GROUP BY 1"
        ),
    ),
    Question(
        "sp-14",
        "How much was spent in total on treatments given by vets?",
        "filter",
        numbers=((4344,),),
        sql=(
            "SELECT SUM(t.cost_of_treatment) FROM Treatments t JOIN Professionals p ON "
            "p.professional_id = t.professional_id WHERE p.role_code = 'Veterenarian'"
        ),
    ),
    Question(
        "sp-15",
        "老年犬的次均诊疗费用是多少？",
        "filter",
        numbers=((447.3333,),),
        sql=f"SELECT AVG(t.cost_of_treatment) {_TREATED} WHERE {_SENIOR}",
    ),
    Question(
        "sp-16",
        "Which owner state has the highest vet bill?",
        "topk",
        numbers=((1601,),),
        facts=(("Vermont",),),
        sql=(
            "SELECT o.state, SUM(t.cost_of_treatment) FROM Treatments t JOIN Dogs d ON "
            "d.dog_id = t.dog_id JOIN Owners o ON o.owner_id = d.owner_id GROUP BY 1 "
            "ORDER BY 2 DESC LIMIT 1"
        ),
    ),
    Question(
        "sp-17",
        "2018年3月的就诊次数是多少？",
        "metric",
        numbers=((13,),),
        sql=(
            "SELECT COUNT(*) FROM Treatments t WHERE t.date_of_treatment >= '2018-03-01' "
            "AND t.date_of_treatment < '2018-04-01'"
        ),
    ),
    Question(
        "sp-18",
        "What is the spend per patient for large dogs?",
        "metric",
        numbers=((492,),),
        sql=(
            "SELECT SUM(t.cost_of_treatment) * 1.0 / COUNT(DISTINCT t.dog_id) FROM Treatments "
            "t JOIN Dogs d ON d.dog_id = t.dog_id JOIN Sizes s ON s.size_code = d.size_code "
            "WHERE s.size_description = 'Large'"
        ),
    ),
    Question(
        "sp-19",
        "中型犬中有几只狗是流浪狗？",
        "filter",
        numbers=((2,),),
        sql=(
            "SELECT COUNT(*) FROM Dogs d JOIN Sizes s ON s.size_code = d.size_code WHERE "
            "s.size_description = 'Medium' AND d.abandoned_yn = '1'"
        ),
    ),
    Question(
        "sp-20",
        "How many senior patients received a vaccination?",
        "filter",
        numbers=((2,),),
        sql=(
            f"SELECT COUNT(DISTINCT t.dog_id) {_TREATED} WHERE {_SENIOR} AND "
            "y.treatment_type_description = 'Vaccination'"
        ),
    ),
)

QUESTIONS: tuple[Question, ...] = CAR_1 + DOG_KENNELS
DATABASES: dict[str, tuple[Question, ...]] = {"car_1": CAR_1, "dog_kennels": DOG_KENNELS}
"""Each Spider database of the set and its questions."""
